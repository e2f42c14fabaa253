"""The retrieval's hosted embedding model (paper appendix A: text-embedding-3-large, top 5) goes through
the model layer: every text cached like a model request; the demo keeps the local encoder."""

import re
from pathlib import Path

import numpy as np
import pytest
import yaml

from cultalign.models import ModelSpec, RequestCache
from cultalign.models.embeddings import CachedEmbeddings, open_embeddings

ROOT = Path(__file__).resolve().parents[2]
WORDS = ["bow", "greet", "apologise", "shoes", "home", "guest", "gift", "money", "time", "train"]


class FakeEmbeddingEndpoint:
    """Test double of an embeddings endpoint: a bag-of-words vector over WORDS (plus a constant), and a
    log of the batches it was sent."""

    def __init__(self):
        self.batches = []

    def __call__(self, texts):
        self.batches.append(list(texts))
        return [[2.0 * (w in re.findall(r"[a-z]+", t.lower())) for w in WORDS] + [0.5] for t in texts]


def _spec(name="text-embedding-3-large", **kw):
    return ModelSpec.from_config(name, {"backend": "openai", "source": "api", "hub_id": name, "revision": name,
                                        "batch_size": 2, **kw})


def test_embeddings_are_cached_per_text_and_a_warm_rerun_calls_nothing(tmp_path):
    fake = FakeEmbeddingEndpoint()
    emb = CachedEmbeddings(_spec(), RequestCache(tmp_path, "emb", writer="job1"), endpoint=fake)
    texts = ["People bow to greet.", "Guests take off their shoes at home.", "People bow to greet.", "A gift."]
    vecs = emb.embed_documents(texts)
    assert [len(b) for b in fake.batches] == [2, 1]  # batch_size 2, the repeated text embedded once
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0) and vecs[0] == vecs[2]
    assert emb.stats["model_requests"] == 3
    # another job (its own cache file) reads the first job's entries: no call at all
    fake2 = FakeEmbeddingEndpoint()
    warm = CachedEmbeddings(_spec(), RequestCache(tmp_path, "emb", writer="job2"), endpoint=fake2)
    assert warm.embed_documents(texts) == vecs and fake2.batches == []
    assert warm.embed_query("A gift.") == vecs[3] and warm.stats["cache_hits"] == 5
    # the key holds the model's identity: another model embeds again
    other = CachedEmbeddings(_spec("text-embedding-3-small"), RequestCache(tmp_path, "emb", writer="job3"),
                             endpoint=fake2)
    other.embed_query("A gift.")
    assert fake2.batches == [["A gift."]]


def test_an_embedding_model_needs_an_endpoint(tmp_path):
    spec = ModelSpec.from_config("local", {"backend": "transformers", "path": "x"})
    with pytest.raises(ValueError, match="models.local: an embedding model needs the openai backend"):
        CachedEmbeddings(spec, RequestCache(tmp_path, "x"))
    short = CachedEmbeddings(_spec(), RequestCache(tmp_path, "y"), endpoint=lambda texts: [[1.0]])
    with pytest.raises(RuntimeError, match="returned 1 embeddings for 2 texts"):
        short.embed_documents(["a", "b"])


def test_retrieval_index_with_the_hosted_embedding_model(tmp_path):
    from langchain_core.documents import Document

    from cultalign.retrieval import build_index, load_index, retrieve

    chunks = [Document(page_content=t, metadata={"source": "s.pdf", "page": 0, "chunk_id": i})
              for i, t in enumerate(["People bow when they greet and apologise.",
                                     "Guests take off their shoes in a home.",
                                     "Trains leave on time; money gifts come in envelopes."])]
    fake = FakeEmbeddingEndpoint()
    emb = CachedEmbeddings(_spec(), RequestCache(tmp_path / "cache", "emb", writer="index"), endpoint=fake)
    build_index(chunks, "unused-local-encoder", tmp_path / "idx", api=emb)
    store = load_index(tmp_path / "idx", "unused-local-encoder", api=emb)
    hits = retrieve(store, "how do guests treat shoes at home", k=2)
    assert hits[0]["chunk_id"] == 1 and len(hits) == 2
    assert sum(len(b) for b in fake.batches) == 4  # three chunks and one query, each embedded once


def test_paper_scale_retrieval_is_the_papers_and_the_demo_keeps_the_local_encoder():
    paper = yaml.safe_load((ROOT / "config" / "paper.yaml").read_text())
    corpus = paper["personas"]["corpus"]
    assert corpus["embedding_api_model"] == "text-embedding-3-large" and corpus["top_k"] == 5
    assert (corpus["chunk_size"], corpus["chunk_overlap"]) == (3000, 100)
    model = paper["models"]["text-embedding-3-large"]
    assert model["backend"] == "openai" and model["api_key_env"]
    demo = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())["personas"]["corpus"]
    assert demo["embedding_api_model"] is None and demo["embedding_model"].startswith("package:")


def test_open_embeddings_from_a_rule_param(tmp_path):
    llm = {"name": "text-embedding-3-large", "cache_dir": str(tmp_path),
           "spec": {"backend": "openai", "source": "api", "hub_id": "text-embedding-3-large",
                    "revision": "text-embedding-3-large", "api_key_env": "OPENAI_API_KEY"}}
    emb = open_embeddings(llm, writer="w")
    assert emb.spec.model_id == "text-embedding-3-large"
    assert emb.cache.folder == tmp_path / "text-embedding-3-large_text-embedding-3-large"
