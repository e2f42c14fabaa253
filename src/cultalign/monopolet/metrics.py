"""Stated and Explicit Agreement Accuracy (SAA, EAA) and their average.

Per dilemma, with matched pairs split by stance into A (same stance) and
C (conflicting):  SAA = |A| / (|S_cand| + |S_ref|),  EAA = |A| / (|A| + |C|)
(undefined when nothing matched), AVG = (SAA + EAA) / 2 (undefined with EAA).
Per agent pair the per-dilemma values are averaged over the dilemmas where
they are defined.  Works for any two agents (model/panel/human).

The summary also states what the embedding prefilter cost and lost (its
pairs count as not matched, so SAA and EAA can only go down with it): pairs
judged, pairs skipped, the audited skipped pairs and their matches, and the
estimated recall (``prefilter_recall``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .solutions_io import counts as solution_counts

SUMMARY_COLUMNS = ["comparison", "candidate", "reference", "n_dilemmas", "n_dilemmas_eaa_defined", "SAA", "EAA",
                   "AVG", "pairs", "judged_pairs", "identical_pairs", "valid", "invalid", "cand_extraction_invalid",
                   "ref_extraction_invalid", "skipped_pairs", "audited_pairs", "audit_matches", "prefilter_recall"]


def prefilter_recall(judge_matches: int, skipped: int, audited: int, audit_matches: int) -> float:
    """Estimated share of the judge's matches the prefilter let through: the matches among the
    judged pairs over those plus the matches estimated among the skipped pairs (the match rate
    among the ``audited`` skipped pairs with a valid verdict, times the skipped pairs).  1 when
    nothing was skipped (the prefilter off, or every pair passed); NaN when pairs were skipped but
    none audited (not measured), or when the judge matched nothing anywhere."""
    if skipped == 0:
        return 1.0
    if audited == 0:
        return float("nan")
    lost = skipped * audit_matches / audited
    return judge_matches / (judge_matches + lost) if judge_matches + lost > 0 else float("nan")


def agreement_per_dilemma(pairs: pd.DataFrame, n_cand: pd.Series, n_ref: pd.Series) -> pd.DataFrame:
    """pairs: matching output (dilemma_id, stance_cand, stance_ref, match);
    n_cand / n_ref: number of solutions per dilemma_id for each agent."""
    ids = sorted(set(n_cand.index) & set(n_ref.index))
    rows = []
    for d in ids:
        p = pairs[(pairs["dilemma_id"] == d) & (pairs["match"] == 1)]
        a = int((p["stance_cand"] == p["stance_ref"]).sum())
        c = int((p["stance_cand"] != p["stance_ref"]).sum())
        sc, sr = int(n_cand.get(d, 0)), int(n_ref.get(d, 0))
        saa = a / (sc + sr) if sc + sr > 0 else np.nan
        eaa = a / (a + c) if a + c > 0 else np.nan
        avg = (saa + eaa) / 2 if not (np.isnan(saa) or np.isnan(eaa)) else np.nan
        rows.append({"dilemma_id": d, "n_cand": sc, "n_ref": sr, "n_matched": a + c, "agree": a, "conflict": c,
                     "SAA": saa, "EAA": eaa, "AVG": avg})
    return pd.DataFrame(rows, columns=["dilemma_id", "n_cand", "n_ref", "n_matched", "agree", "conflict",
                                       "SAA", "EAA", "AVG"])


def summarise(per_dilemma: pd.DataFrame) -> dict:
    saa = per_dilemma["SAA"].mean()
    eaa = per_dilemma["EAA"].mean()
    return {"n_dilemmas": len(per_dilemma), "n_dilemmas_eaa_defined": int(per_dilemma["EAA"].notna().sum()),
            "SAA": saa, "EAA": eaa,
            "AVG": (saa + eaa) / 2 if not (pd.isna(saa) or pd.isna(eaa)) else np.nan}


def agreement_tables(matchings: dict[str, pd.DataFrame],
                     solutions: dict[str, pd.DataFrame]) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, int]]:
    """Per comparison ``<candidate>_vs_<reference>`` (its matching table) with the agents' solutions
    tables: (summary per comparison, agreement per dilemma, valid/invalid counts)."""
    per, summ = [], []
    for comp, pairs in matchings.items():
        cand, ref = comp.split("_vs_")
        d = agreement_per_dilemma(pairs, solution_counts(solutions[cand]), solution_counts(solutions[ref]))
        d.insert(0, "comparison", comp)
        per.append(d)
        judged = pairs["judged"].astype(bool) if len(pairs) else pd.Series(dtype=bool)
        n = len(pairs)
        skipped = int((pairs["decision"] == "prefilter_reject").sum()) if n else 0
        audited = int(pairs["audited"].astype(bool).sum()) if n and "audited" in pairs else 0
        verdicts = pd.to_numeric(pairs["audit_match"]).dropna() if n and "audit_match" in pairs else pd.Series([])
        audit_matches = int(verdicts.sum())
        judge_matches = int(pairs.loc[judged, "match"].astype(int).sum()) if n else 0
        s = summarise(d)
        s.update({"comparison": comp, "candidate": cand, "reference": ref, "pairs": len(pairs),
                  "judged_pairs": int(judged.sum()),
                  "identical_pairs": int((pairs["decision"] == "identical").sum()) if len(pairs) else 0,
                  "valid": int((pairs["valid"].astype(bool) & judged).sum()) if len(pairs) else 0,
                  "invalid": int((~pairs["valid"].astype(bool)).sum()) if len(pairs) else 0,
                  "cand_extraction_invalid": int((~solutions[cand]["valid"].astype(bool)).sum()),
                  "ref_extraction_invalid": int((~solutions[ref]["valid"].astype(bool)).sum()),
                  "skipped_pairs": skipped, "audited_pairs": audited, "audit_matches": audit_matches,
                  "prefilter_recall": prefilter_recall(judge_matches, skipped, len(verdicts), audit_matches)})
        summ.append(s)
    summary = pd.DataFrame(summ, columns=SUMMARY_COLUMNS)
    counts = {"valid": int(summary["valid"].sum()), "invalid": int(summary["invalid"].sum())}
    return summary, pd.concat(per, ignore_index=True), counts


def weighted_topic_scores(doc_topic: pd.DataFrame, per_dilemma: pd.DataFrame, metric: str = "AVG") -> pd.DataFrame:
    """Figure 8: per comparison and topic, the mean of the per-dilemma ``metric``
    weighted by each dilemma's (non-negative) weight in the document-topic matrix."""
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


PREFILTER_COLUMNS = ["judged_pairs", "skipped_pairs", "prefilter_recall"]


def with_prefilter_columns(table: pd.DataFrame, summary: pd.DataFrame) -> pd.DataFrame:
    """``table`` (one row per comparison and more, e.g. Figure 8's topic scores) with the
    prefilter's cost and estimated recall of its comparison from the agreement summary."""
    cols = [c for c in PREFILTER_COLUMNS if c in summary]
    return table.merge(summary[["comparison", *cols]], on="comparison", how="left")


def eaa_grid(output_lengths: list[int], steps: int) -> pd.DataFrame:
    """Appendix D (Figure 9): EAA of one dilemma over a grid of the candidate's number of solutions
    (r_cand), the intersection ratio (share of candidate solutions matched) and the same-stance
    ratio among matched pairs.  Each grid point is a constructed matching (r_cand candidate and
    r_cand reference solutions, round(ratio * r_cand) matched, round(stance * matched) of them with
    the same stance) scored by ``agreement_per_dilemma``, the function the study uses."""
    if steps < 2:
        raise ValueError(f"monopolet.eaa_grid.steps: need at least 2 grid steps, got {steps}")
    bad = [r for r in output_lengths if int(r) < 1]
    if bad:
        raise ValueError(f"monopolet.eaa_grid.output_lengths: lengths must be >= 1, got {bad}")
    ratios = np.linspace(0.0, 1.0, steps)
    rows = []
    for r in output_lengths:
        r = int(r)
        for ir in ratios:
            k = int(round(ir * r))
            for st in ratios:
                a = int(round(st * k))
                pairs = pd.DataFrame({"dilemma_id": "d", "match": 1, "stance_cand": ["advised"] * k,
                                      "stance_ref": ["advised"] * a + ["not_advised"] * (k - a)})
                n = pd.Series({"d": r})
                m = agreement_per_dilemma(pairs, n, n).iloc[0]
                rows.append({"r_cand": r, "intersection_ratio": round(float(ir), 6),
                             "same_stance_ratio": round(float(st), 6), "n_matched": k,
                             "agree": int(m["agree"]), "EAA": m["EAA"], "SAA": m["SAA"]})
    return pd.DataFrame(rows)
