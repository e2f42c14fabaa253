"""Samples for the validation annotations of appendix A, exported for annotators (label columns
left empty; a filled file is what ``monopolet.annotations`` points at).

* A.1 (Table 2): one-sentence dilemma summaries with a transcript chunk, ``mapping_per_annotator``
  items for each of ``annotators`` annotators, ``mapping_overlap`` of them shown to every annotator
  (the paper: 2 x 150 with 25 shared, 275 items).  The chunk is the one the mapping chose (system
  label M), or for a dilemma it left unmapped the embedding's proposal (system NM); label columns
  ``annotator_<k>`` (M / NM, filled only for the items in ``assigned``), the layout
  ``monopolet.annotations.mapping`` reads.
* A.2 (Table 3): full-form dilemmas with their transcript sections, ``dilemmas_per_annotator``
  for each of ``annotators`` annotators, disjoint (the paper: 2 x 150); issue columns Missing,
  Mis-Un, Hall, Not-In (1 = the issue is present).
* A.3 (Table 4): ``solution_dilemmas`` dilemmas (the paper: 99) with the panel's solutions before
  the post-processing pass (the first pass's raw output) and after it.
* A.4 (matching error rate): per dilemma and comparison, up to ``matching_per_class`` candidate
  solutions the system matched to some reference solution and as many it did not (the paper: 4
  and 4), each with the reference solutions; column ``issue`` (the layout of
  ``monopolet.annotations.matching`` once ``annotator`` is set).

Samples are drawn with a seeded generator; asking for more than there is takes everything and
is counted, never an error."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from ..core.seeds import derive_seed

DILEMMA_ISSUES = ["Missing", "Mis-Un", "Hall", "Not-In"]


def _pick(df: pd.DataFrame, n: int, rng: np.random.Generator) -> pd.DataFrame:
    if len(df) <= n:
        return df
    return df.iloc[np.sort(rng.choice(len(df), size=n, replace=False))]


def mapping_sample(sections: pd.DataFrame, chunks: pd.DataFrame, annotators: int, per_annotator: int,
                   overlap: int, seed: int) -> tuple[pd.DataFrame, dict[str, int]]:
    """A.1: summaries with the chunk the system chose (M) or proposed and rejected (NM).  ``chunks``:
    every episode's chunk table with its ``episode_id``.  Items shown to every annotator come
    first; then each annotator's own block.  Returns the sample and its counts (eligible
    dilemmas, items, shared items, system labels)."""
    if overlap > per_annotator:
        raise ValueError(f"monopolet.annotation_samples.mapping_overlap: {overlap} shared items exceed "
                         f"mapping_per_annotator {per_annotator}")
    d = sections[["dilemma_id", "episode_id", "summary", "chunk", "proposed_chunk"]].copy()
    d["system"] = np.where(d["chunk"].astype(int) >= 0, "M", "NM")
    d["shown"] = np.where(d["system"] == "M", d["chunk"], d["proposed_chunk"]).astype(int)
    eligible = d[d["shown"] >= 0]
    text = chunks.assign(chunk=chunks["chunk"].astype(int))[["episode_id", "chunk", "text"]]
    eligible = eligible.merge(text.rename(columns={"chunk": "shown", "text": "chunk_text"}),
                              on=["episode_id", "shown"], how="inner").reset_index(drop=True)
    own = per_annotator - overlap
    n = min(len(eligible), overlap + annotators * own)
    order = np.random.default_rng(derive_seed(seed, "monopolet", "analysis", "annotation_mapping")).permutation(
        len(eligible))[:n]
    k = min(overlap, n)
    who = [",".join(str(a + 1) for a in range(annotators))] * k
    who += [str(1 + (j // own if own else 0)) for j in range(n - k)]
    out = eligible.iloc[order].assign(assigned=who).reset_index(drop=True)
    out.insert(0, "item", [f"m{i:04d}" for i in range(len(out))])
    labels = [f"annotator_{a + 1}" for a in range(max(annotators, 2))]
    for c in labels:
        out[c] = ""
    out = out.rename(columns={"shown": "chunk_shown"})
    counts = {"eligible": len(eligible), "items": len(out), "shared": k,
              "without_chunk": int((d["shown"] < 0).sum()),
              "system_M": int((out["system"] == "M").sum()), "system_NM": int((out["system"] == "NM").sum())}
    return out[["item", "assigned", *labels, "system", "dilemma_id", "episode_id", "summary", "chunk_shown",
                "chunk_text"]], counts


def dilemma_sample(dilemmas: pd.DataFrame, sections: pd.DataFrame, annotators: int, per_annotator: int,
                   seed: int) -> pd.DataFrame:
    """A.2: disjoint samples of valid dilemmas, one per annotator, with their sections."""
    d = dilemmas[dilemmas["valid"].astype(bool)][["dilemma_id", "dilemma"]]
    d = d.merge(sections[["dilemma_id", "episode_id", "summary", "section"]], on="dilemma_id", how="left")
    rng = np.random.default_rng(derive_seed(seed, "monopolet", "analysis", "annotation_dilemmas"))
    order = rng.permutation(len(d))
    rows = []
    for a in range(annotators):
        part = d.iloc[order[a * per_annotator:(a + 1) * per_annotator]]
        rows.append(part.assign(annotator=f"A{a + 1}"))
    out = pd.concat(rows, ignore_index=True) if rows else d.head(0).assign(annotator="")
    out.insert(0, "item", [f"d{i:04d}" for i in range(len(out))])
    for c in DILEMMA_ISSUES:
        out[c] = ""
    return out[["item", "annotator", "dilemma_id", "episode_id", "summary", "dilemma", "section", *DILEMMA_ISSUES]]


def solution_sample(dilemmas: pd.DataFrame, sections: pd.DataFrame, panel: pd.DataFrame, n: int,
                    seed: int) -> pd.DataFrame:
    """A.3: dilemmas with the panel's solutions before (first-pass output) and after post-processing."""
    p = panel[panel["valid"].astype(bool)][["dilemma_id", "n_raw", "n_solutions", "raw", "solutions"]]
    p = p.merge(dilemmas[["dilemma_id", "dilemma"]], on="dilemma_id").merge(
        sections[["dilemma_id", "section"]], on="dilemma_id", how="left")
    out = _pick(p.reset_index(drop=True), n,
                np.random.default_rng(derive_seed(seed, "monopolet", "analysis", "annotation_solutions"))).rename(
        columns={"raw": "first_pass_output", "solutions": "final_solutions"})
    out.insert(0, "item", [f"s{i:04d}" for i in range(len(out))])
    out["issues"] = ""
    return out[["item", "dilemma_id", "dilemma", "section", "n_raw", "first_pass_output", "n_solutions",
                "final_solutions", "issues"]]


def matching_sample(matchings: dict[str, pd.DataFrame], per_class: int, seed: int) -> pd.DataFrame:
    """A.4: per comparison and dilemma, up to ``per_class`` matched and unmatched candidate solutions."""
    rows = []
    for comparison in sorted(matchings):
        m = matchings[comparison]
        if m.empty:
            continue
        m = m.assign(match=m["match"].astype(int))
        uniq = m.drop_duplicates(["dilemma_id", "solution_ref"])
        refs = {d: json.dumps([{"action": a, "stance": s} for a, s in zip(g["action_ref"], g["stance_ref"])],
                              ensure_ascii=False) for d, g in uniq.groupby("dilemma_id")}
        cand = (m.groupby(["dilemma_id", "solution_cand"], as_index=False)
                .agg(action_cand=("action_cand", "first"), stance_cand=("stance_cand", "first"),
                     system_matched=("match", "max")))
        hits = m[m["match"] == 1].groupby(["dilemma_id", "solution_cand"])["action_ref"].agg(
            lambda s: json.dumps(list(s), ensure_ascii=False))
        cand["matched_to"] = [hits.get((d, k), "[]") for d, k in zip(cand["dilemma_id"], cand["solution_cand"])]
        for did, g in cand.groupby("dilemma_id", sort=True):
            for flag in (1, 0):
                rng = np.random.default_rng(derive_seed(seed, "monopolet", "analysis", "annotation_matchings",
                                                        comparison, did, flag))
                pick = _pick(g[g["system_matched"] == flag], per_class, rng)
                rows.append(pick.assign(comparison=comparison, reference_solutions=refs.get(did, "[]")))
    cols = ["pair_id", "comparison", "dilemma_id", "solution_cand", "action_cand", "stance_cand", "system_matched",
            "matched_to", "reference_solutions", "annotator", "issue"]
    if not rows:
        return pd.DataFrame(columns=cols)
    out = pd.concat(rows, ignore_index=True)
    out.insert(0, "pair_id", [f"p{i:04d}" for i in range(len(out))])
    out["annotator"], out["issue"] = "", ""
    return out[cols]
