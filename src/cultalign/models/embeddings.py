"""Text embeddings from a hosted embeddings endpoint (OpenAI API), through the request cache.

A model under ``models:`` with the openai backend (e.g. ``text-embedding-3-large``) embeds texts
with ``POST /embeddings``.  Each text is one cache entry, keyed like every model request (kind
``embedding``, the model's identity, the text), in the model's cache folder, so a rerun embeds
nothing twice and a warm rerun makes no call.  Vectors are returned L2-normalised (the index's L2
distance then orders like cosine similarity).  The API key comes from ``models.<name>.api_key_env``
and is never logged or cached (``openai_backend.resolve_api_key``).
"""

from __future__ import annotations

import logging
import math
import os
from typing import Callable, Mapping, Sequence

from .cache import RequestCache, request_key
from .types import ModelSpec

log = logging.getLogger(__name__)

KIND = "embedding"
DEFAULT_BATCH = 64  # texts per endpoint call when the model entry sets no batch_size


def _unit(v: Sequence[float]) -> list[float]:
    n = math.sqrt(sum(float(x) * float(x) for x in v))
    if not n:
        raise ValueError("the embeddings endpoint returned a zero vector")
    return [float(x) / n for x in v]


def openai_endpoint(spec: ModelSpec, environ: Mapping[str, str] = os.environ) -> Callable[[list[str]], list]:
    """fn(texts) -> vectors from the OpenAI(-compatible) embeddings endpoint of ``spec``, with the
    backend's retries of transient errors."""
    import openai

    from .openai_backend import call_with_retries, resolve_api_key

    client = openai.OpenAI(base_url=spec.base_url, api_key=resolve_api_key(spec, environ))
    model = spec.served_model

    def call(texts: list[str]) -> list:
        resp = call_with_retries(lambda: client.embeddings.create(model=model, input=list(texts)),
                                 spec.max_retries, spec.backoff_base, spec.backoff_cap,
                                 what=f"embeddings of {len(texts)} texts by {model}")
        return [d.embedding for d in sorted(resp.data, key=lambda d: d.index)]

    return call


class CachedEmbeddings:
    """``embed_documents(texts)`` / ``embed_query(text)`` of one embedding model, every text cached.
    ``endpoint``: fn(texts) -> vectors (None: the model's OpenAI endpoint, opened on the first miss)."""

    def __init__(self, spec: ModelSpec, cache: RequestCache, endpoint: Callable[[list[str]], list] | None = None,
                 batch_size: int | None = None):
        if spec.backend != "openai":
            raise ValueError(f"models.{spec.name}: an embedding model needs the openai backend (an embeddings "
                             f"endpoint), not {spec.backend!r}")
        self.spec, self.cache, self._endpoint = spec, cache, endpoint
        self.batch_size = int(batch_size or spec.batch_size or DEFAULT_BATCH)
        self.stats = {"cache_hits": 0, "model_requests": 0, "endpoint_calls": 0}

    def key(self, text: str) -> str:
        return request_key(KIND, self.spec.identity(), {"input": text})

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        texts = [str(t) for t in texts]
        keys = [self.key(t) for t in texts]
        found = self.cache.get_many(set(keys))
        todo = list(dict.fromkeys(k for k in keys if k not in found))
        self.stats["cache_hits"] += sum(k in found for k in keys)
        if todo:
            if self._endpoint is None:
                self._endpoint = openai_endpoint(self.spec)
            text_of = dict(zip(keys, texts))
            for i in range(0, len(todo), self.batch_size):
                batch = todo[i : i + self.batch_size]
                vecs = self._endpoint([text_of[k] for k in batch])
                if len(vecs) != len(batch):
                    raise RuntimeError(f"model {self.spec.name!r} returned {len(vecs)} embeddings for {len(batch)} "
                                       "texts")
                rows = [(k, KIND, {"model": self.spec.identity(), "input": text_of[k]}, _unit(v))
                        for k, v in zip(batch, vecs)]
                self.cache.put_many(rows)
                found.update({k: v for k, _, _, v in rows})
                self.stats["endpoint_calls"] += 1
                self.stats["model_requests"] += len(batch)
            log.info("embeddings by %s: %d texts, %d embedded, %d from the cache", self.spec.name, len(texts),
                     len(todo), len(texts) - len(todo))
        return [list(found[k]) for k in keys]

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]


def open_embeddings(llm: dict, writer: str | None = None) -> CachedEmbeddings:
    """The embeddings of a rule's model param (``llm_of(name)``: name, spec, cache_dir)."""
    spec = ModelSpec.from_config(llm["name"], dict(llm["spec"]))
    cache = RequestCache(llm["cache_dir"], f"{spec.model_id}@{spec.revision or 'local'}", writer=writer)
    return CachedEmbeddings(spec, cache)
