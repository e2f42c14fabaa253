"""Topics of the dilemmas with turftopic's SensTopic and a locally loaded
encoder (never a hub name), and per-topic weighted average scores (Figure 8):
for each model and topic, the mean of the per-dilemma AVG weighted by the
dilemma's topic weight in the document-topic matrix."""

from __future__ import annotations

import numpy as np
import pandas as pd


def fit_topics(texts: list[str], encoder, n_components, seed: int, top_terms: int = 6):
    from turftopic import SensTopic

    model = SensTopic(n_components=n_components, encoder=encoder, random_state=seed)
    doc_topic = model.fit_transform(texts)
    vocab = model.get_vocab()
    names = []
    for k, comp in enumerate(model.components_):
        terms = [vocab[i] for i in np.argsort(-comp)[:top_terms]]
        names.append({"topic": k, "name": f"{k}_" + "_".join(terms[:3]), "top_terms": ", ".join(terms)})
    return np.asarray(doc_topic), pd.DataFrame(names)


def weighted_topic_scores(doc_topic: pd.DataFrame, per_dilemma: pd.DataFrame, metric: str = "AVG") -> pd.DataFrame:
    """doc_topic: dilemma_id + one column per topic; per_dilemma: comparison, dilemma_id, metric."""
    topic_cols = [c for c in doc_topic.columns if c != "dilemma_id"]
    m = per_dilemma.merge(doc_topic, on="dilemma_id")
    rows = []
    for comp, g in m.groupby("comparison"):
        ok = g[g[metric].notna()]
        for t in topic_cols:
            w = ok[t].clip(lower=0).to_numpy()
            val = float(np.average(ok[metric], weights=w)) if w.sum() > 0 else np.nan
            rows.append({"comparison": comp, "topic": t, metric: val, "weight_sum": float(w.sum())})
    return pd.DataFrame(rows, columns=["comparison", "topic", metric, "weight_sum"])
