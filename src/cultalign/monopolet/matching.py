"""Solution matching: an LLM judge applies the component matching rules
(action order, action semantics, conditions, entities) to each
candidate/reference pair, reasoning over each rule before its verdict and
ignoring motivation and stance.  M = 1 when no rule is violated.

The judge costs one request per pair.  An embedding prefilter skips pairs
that cannot match: a pair is judged when the cosine similarity of the two
actions reaches ``min_similarity`` or the reference is among the candidate's
``top_k`` most similar; skipped pairs count as M = 0 (``judged=False``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..models import ChatRequest, SamplingParams
from .prompts import render

RULES = ("order", "semantics", "conditions", "entities")


@dataclass
class PrefilterSettings:
    enabled: bool = True
    min_similarity: float = 0.85
    top_k: int = 1


@dataclass
class JudgeSettings:
    max_new_tokens: int = 200
    max_reason_chars: int = 160
    temperature: float = 0.0
    prefilter: PrefilterSettings = field(default_factory=PrefilterSettings)

    @classmethod
    def from_config(cls, cfg: dict) -> "JudgeSettings":
        kw = {k: v for k, v in cfg.items() if k in cls.__dataclass_fields__ and k != "prefilter"}
        return cls(**kw, prefilter=PrefilterSettings(**cfg.get("prefilter", {})))


def judge_schema(s: JudgeSettings) -> dict:
    rule = {"type": "object", "additionalProperties": False, "required": ["reasoning", "violated"],
            "properties": {"reasoning": {"type": "string", "maxLength": s.max_reason_chars},
                           "violated": {"type": "boolean"}}}
    return {"type": "object", "additionalProperties": False, "required": list(RULES),
            "properties": {r: rule for r in RULES}}


def candidate_pairs(cand: pd.DataFrame, ref: pd.DataFrame) -> pd.DataFrame:
    """All (candidate, reference) solution pairs per dilemma present on both sides."""
    m = cand.merge(ref, on="dilemma_id", suffixes=("_cand", "_ref"))
    return m.reset_index(drop=True)


def prefilter(pairs: pd.DataFrame, embedder, s: PrefilterSettings) -> pd.DataFrame:
    out = pairs.copy()
    if out.empty:
        out["similarity"] = []
        out["judge"] = []
        return out
    texts = sorted(set(out["action_cand"]) | set(out["action_ref"]))
    emb = dict(zip(texts, embedder.passages(texts)))
    out["similarity"] = [float(np.dot(emb[a], emb[b])) for a, b in zip(out["action_cand"], out["action_ref"])]
    if not s.enabled:
        out["judge"] = True
        return out
    rank = out.groupby(["dilemma_id", "solution_cand"])["similarity"].rank(ascending=False, method="first")
    out["judge"] = (out["similarity"] >= s.min_similarity) | (rank <= s.top_k)
    return out


def judge_pairs(client, pairs: pd.DataFrame, dilemmas: dict[str, str], s: JudgeSettings, seed: int,
                max_attempts: int = 3) -> pd.DataFrame:
    out = pairs.copy()
    for r in RULES:
        out[f"{r}_violated"] = pd.array([pd.NA] * len(out), dtype="boolean")
    out["valid"] = True
    out["match"] = 0
    idx = out.index[out["judge"]].tolist()
    params = SamplingParams(temperature=s.temperature, max_new_tokens=s.max_new_tokens, seed=seed)
    reqs = [ChatRequest.make(render("judge_match", dilemma=dilemmas.get(out.at[i, "dilemma_id"], ""),
                                    candidate=out.at[i, "action_cand"], reference=out.at[i, "action_ref"]), params)
            for i in idx]
    res = client.generate_json(reqs, judge_schema(s), max_attempts=max_attempts) if reqs else []
    for i, r in zip(idx, res):
        out.at[i, "valid"] = r.valid
        if r.valid:
            for rule in RULES:
                out.at[i, f"{rule}_violated"] = bool(r.value[rule]["violated"])
            out.at[i, "match"] = int(not any(r.value[rule]["violated"] for rule in RULES))
    out["judged"] = out["judge"]
    return out.drop(columns=["judge"])
