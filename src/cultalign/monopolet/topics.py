"""Topics of the dilemmas with turftopic's SensTopic and a locally loaded
encoder (never a hub name).  The per-topic weighted scores of Figure 8 are
``metrics.weighted_topic_scores`` (no topic-model imports needed there).

Each topic keeps two descriptions: ``top_terms``, the topic model's own
CountVectorizer words (Danish stop words removed), and ``keyphrases``, the
phrases the names are made from (``topic_keyphrases``).  The paper extracts
the keyphrases from noun phrases with spaCy; no Danish spaCy pipeline installs
from PyPI, so the candidate phrases here are the runs of one to
``PHRASE_WORDS`` words between stop words and punctuation (the classic
stop-word-delimited candidate phrases, which in Danish are mostly nominal
groups: "naboens hund", "fælles vaskerum"), ranked per topic by c-TF-IDF
over the document-topic weights.  The names themselves are rule
``monopolet_topic_names`` (``topic_names.py``)."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from ..core.seeds import derive_seed

PHRASE_WORDS = 3
_CLAUSE = re.compile(r"[^\w\s'-]+|\n+")
_WORD = re.compile(r"\w+(?:[-']\w+)*")


def topic_vectorizer(n_docs: int, min_df: int, stop_words: str | None):
    """Term counts for the topic words: Danish stop words removed (stopwordsiso,
    offline) and ``min_df`` capped so that a handful of documents keeps a
    vocabulary (turftopic's default vectorizer is English with min_df=10)."""
    from sklearn.feature_extraction.text import CountVectorizer

    words = None
    if stop_words:
        import stopwordsiso

        words = sorted(stopwordsiso.stopwords(stop_words))
    return CountVectorizer(min_df=max(1, min(min_df, n_docs // 2)), stop_words=words)


def _stop_words(language: str | None) -> frozenset[str]:
    if not language:
        return frozenset()
    import stopwordsiso

    return frozenset(stopwordsiso.stopwords(language))


def phrase_candidates(text: str, stop: frozenset[str], max_words: int = PHRASE_WORDS) -> list[str]:
    """Lower-cased phrases of 1 to ``max_words`` words inside the runs of words between stop words
    and punctuation (numbers alone are no phrase)."""
    out = []
    for clause in _CLAUSE.split(text.lower()):
        run: list[str] = []
        for w in [*_WORD.findall(clause), None]:
            if w is not None and w not in stop and not w.isdigit():
                run.append(w)
                continue
            for n in range(1, max_words + 1):
                out += [" ".join(run[i:i + n]) for i in range(len(run) - n + 1)]
            run = []
    return out


def topic_keyphrases(texts: list[str], doc_topic: np.ndarray, stop_words: str | None, n: int,
                     min_df: int = 1) -> list[list[str]]:
    """The ``n`` most characteristic candidate phrases of each topic: c-TF-IDF, i.e. the phrase
    counts weighted by the documents' (non-negative) topic weights, times log(1 + documents /
    documents holding the phrase).  Phrases in fewer than ``min_df`` documents (capped as the
    vectorizer's) are left out; ties keep the longer, then alphabetical phrase."""
    from sklearn.feature_extraction.text import CountVectorizer

    stop = _stop_words(stop_words)
    vec = CountVectorizer(analyzer=lambda t: phrase_candidates(t, stop), min_df=max(1, min(min_df, len(texts) // 2)))
    try:
        counts = vec.fit_transform(texts)
    except ValueError:  # no phrase at all
        return [[] for _ in range(doc_topic.shape[1])]
    vocab = vec.get_feature_names_out()
    df = np.asarray((counts > 0).sum(axis=0)).ravel()
    idf = np.log1p(len(texts) / df)
    w = np.clip(np.asarray(doc_topic, dtype=float), 0, None)
    scores = np.asarray(counts.T @ w).T * idf  # topics x phrases
    out = []
    for row in scores:
        order = sorted(range(len(vocab)), key=lambda i: (-row[i], -len(vocab[i].split()), vocab[i]))
        out.append([vocab[i] for i in order[:n] if row[i] > 0])
    return out


def fit_topics(texts: list[str], encoder, n_components, seed: int, min_df: int, stop_words: str | None,
               top_terms: int = 6):
    from turftopic import SensTopic

    model = SensTopic(n_components=n_components, encoder=encoder,
                      random_state=derive_seed(seed, "monopolet", "analysis", "topics"),
                      vectorizer=topic_vectorizer(len(texts), min_df, stop_words))
    doc_topic = model.fit_transform(texts)
    vocab = model.get_vocab()
    names = []
    for k, comp in enumerate(model.components_):
        terms = [vocab[i] for i in np.argsort(-comp)[:top_terms]]
        names.append({"topic": k, "name": f"{k}_" + "_".join(terms[:3]), "top_terms": ", ".join(terms)})
    return np.asarray(doc_topic), pd.DataFrame(names)


def dilemma_topics(dilemmas: pd.DataFrame, encoder, n_components: int | str, min_df: int, stop_words: str | None,
                   seed: int, keyphrases: int = 10) -> tuple[pd.DataFrame, pd.DataFrame, int]:
    """Topics of the valid dilemmas: (document-topic table with ``dilemma_id``, topics with their
    CountVectorizer ``top_terms`` and ``keyphrases`` (``"; "``-joined), documents).
    An integer ``n_components`` is capped at one less than the number of documents (at least 1);
    without a valid dilemma both tables are empty (no document, no topic)."""
    d = dilemmas[dilemmas["valid"].astype(bool)].reset_index(drop=True)
    if d.empty:  # no valid dilemma (e.g. no section mapped to one): no document, no topic
        return (pd.DataFrame(columns=["dilemma_id"]),
                pd.DataFrame(columns=["topic", "name", "top_terms", "keyphrases"]), 0)
    n = n_components
    if isinstance(n, int):
        n = max(1, min(n, len(d) - 1))
    texts = d["dilemma"].tolist()
    doc_topic, topics = fit_topics(texts, encoder, n, seed=seed, min_df=min_df, stop_words=stop_words)
    topics["keyphrases"] = ["; ".join(p) for p in topic_keyphrases(texts, doc_topic, stop_words, keyphrases, min_df)]
    dt = pd.DataFrame(doc_topic, columns=[f"topic_{k}" for k in range(doc_topic.shape[1])])
    dt.insert(0, "dilemma_id", d["dilemma_id"])
    return dt, topics, len(d)


def topic_map(doc_topics: pd.DataFrame, seed: int, perplexity: float) -> pd.DataFrame:
    """Figure 3: document positions from the document-topic proportions by t-SNE (as in the
    paper), with each document's dominant topic.  Proportions: the weights clipped at 0 and
    divided by their row sum (a row without positive weight is spread evenly).  t-SNE needs a
    perplexity below the number of documents: it is capped at (n - 1) / 3 (at least 1); a
    single document sits at the origin (``layout`` records which)."""
    from sklearn.manifold import TSNE

    cols = [c for c in doc_topics.columns if c.startswith("topic_")]
    if doc_topics.empty:  # no documents (no valid dilemma): nothing to place
        return pd.DataFrame(columns=["dilemma_id", "topic", "x", "y", "layout"])
    if not cols:
        raise ValueError("doc_topics: no topic_<k> columns (the topics table of rule monopolet_topics)")
    w = doc_topics[cols].to_numpy(dtype=float).clip(min=0)
    sums = w.sum(axis=1, keepdims=True)
    prop = np.where(sums > 0, w / np.where(sums > 0, sums, 1), 1.0 / len(cols))
    n = len(prop)
    out = pd.DataFrame({"dilemma_id": doc_topics["dilemma_id"].to_numpy(),
                        "topic": [cols[k].removeprefix("topic_") for k in prop.argmax(axis=1)] if n else []})
    if n < 2:
        out["x"], out["y"], out["layout"] = 0.0, 0.0, "single document"
        return out
    p = min(float(perplexity), max(1.0, (n - 1) / 3))
    init = "pca" if min(n, len(cols)) >= 2 else "random"
    xy = TSNE(n_components=2, perplexity=p, init=init,
              random_state=derive_seed(seed, "monopolet", "analysis", "topic_map")).fit_transform(prop)
    out["x"], out["y"], out["layout"] = xy[:, 0], xy[:, 1], f"tsne perplexity {p:g}"
    return out
