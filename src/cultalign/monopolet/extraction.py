"""Full-form dilemma extraction and solution extraction with post-processing.

All model outputs are structured (JSON schema: constrained decoding where
the backend supports it, always validated); failures are retried by the
model layer and recorded with ``valid=False``, never dropped.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

import pandas as pd

from ..models import ChatRequest, SamplingParams
from .prompts import render

STANCES = ("advised", "not_advised")


@dataclass
class ExtractionSettings:
    max_new_tokens: int = 256
    max_solutions: int = 12
    max_action_chars: int = 160
    max_dilemma_chars: int = 1500
    temperature: float = 0.0
    postprocess: bool = True

    @classmethod
    def from_config(cls, cfg: dict) -> "ExtractionSettings":
        return cls(**{k: v for k, v in cfg.items() if k in cls.__dataclass_fields__})


def dilemma_schema(s: ExtractionSettings) -> dict:
    return {"type": "object", "additionalProperties": False, "required": ["dilemma"],
            "properties": {"dilemma": {"type": "string", "minLength": 10, "maxLength": s.max_dilemma_chars}}}


def solutions_schema(s: ExtractionSettings) -> dict:
    item = {"type": "object", "additionalProperties": False, "required": ["action", "stance"],
            "properties": {"action": {"type": "string", "minLength": 2, "maxLength": s.max_action_chars},
                           "stance": {"type": "string", "enum": list(STANCES)}}}
    return {"type": "object", "additionalProperties": False, "required": ["solutions"],
            "properties": {"solutions": {"type": "array", "maxItems": s.max_solutions, "items": item}}}


def _params(s: ExtractionSettings, seed: int) -> SamplingParams:
    return SamplingParams(temperature=s.temperature, max_new_tokens=s.max_new_tokens, seed=seed)


def extract_dilemmas(client, sections: pd.DataFrame, settings: ExtractionSettings, seed: int,
                     max_attempts: int = 3) -> pd.DataFrame:
    reqs = [ChatRequest.make(render("extract_dilemma", summary=r.summary, section=r.section), _params(settings, seed))
            for r in sections.itertuples()]
    res = client.generate_json(reqs, dilemma_schema(settings), max_attempts=max_attempts)
    out = sections[["dilemma_id", "episode_id", "summary"]].copy()
    out["dilemma"] = [r.value["dilemma"].strip() if r.valid else "" for r in res]
    out["valid"] = [r.valid for r in res]
    out["attempts"] = [r.n_attempts for r in res]
    out["raw"] = [r.raw for r in res]
    return out


# -- negation normalisation (deterministic, Danish) ----------------------------
_NEG_PATTERNS = [
    r"lad\s+(?:være|vær|vaere)\s+med\s+at\s+",
    r"undlad\s+at\s+",
    r"undgå\s+at\s+",
    r"(?:du|i|man)\s+(?:skal|bør|må|burde|skulle)\s+ikke\s+",
    r"(?:skal|bør|må)\s+ikke\s+",
    r"ikke\s+",
    r"aldrig\s+",
]
_NEG_RE = re.compile(r"^\s*(?:" + "|".join(_NEG_PATTERNS) + r")", re.IGNORECASE)


def normalise_negation(action: str, stance: str) -> tuple[str, str, bool]:
    """A leading negation becomes a positive action with the opposite stance."""
    m = _NEG_RE.match(action)
    if not m:
        return action.strip(), stance, False
    rest = action[m.end():].strip()
    if not rest:
        return action.strip(), stance, False
    rest = rest[0].upper() + rest[1:]
    flipped = "not_advised" if stance == "advised" else "advised"
    return rest, flipped, True


def _key(action: str) -> str:
    return re.sub(r"[^\wæøå ]+", "", action.casefold()).strip()


def clean_solutions(sols: list[dict]) -> list[dict]:
    """Negation normalisation and exact-duplicate removal (same action and stance)."""
    out, seen = [], set()
    for s in sols:
        action, stance, neg = normalise_negation(str(s.get("action", "")), s.get("stance", "advised"))
        if len(_key(action)) < 2:
            continue
        k = (_key(action), stance)
        if k in seen:
            continue
        seen.add(k)
        out.append({"action": action, "stance": stance, "negation_normalised": neg})
    return out


def extract_solutions(client, items: pd.DataFrame, prompt: str, settings: ExtractionSettings, seed: int,
                      max_attempts: int = 3) -> tuple[pd.DataFrame, pd.DataFrame]:
    """items: dilemma_id, dilemma, response.  Returns (solutions, per-dilemma status)."""
    schema = solutions_schema(settings)
    reqs = [ChatRequest.make(render(prompt, dilemma=r.dilemma, response=r.response), _params(settings, seed))
            for r in items.itertuples()]
    first = client.generate_json(reqs, schema, max_attempts=max_attempts)
    raw_lists = [clean_solutions(r.value["solutions"]) if r.valid else [] for r in first]
    post_valid = [None] * len(items)
    final_lists = list(raw_lists)
    if settings.postprocess:
        todo = [i for i, l in enumerate(raw_lists) if l]
        preqs = [ChatRequest.make(render("postprocess_solutions", dilemma=items["dilemma"].iloc[i],
                                         solutions=json.dumps({"solutions": [{"action": s["action"], "stance": s["stance"]}
                                                                             for s in raw_lists[i]]},
                                                              ensure_ascii=False)),
                                  _params(settings, seed)) for i in todo]
        post = client.generate_json(preqs, schema, max_attempts=max_attempts) if preqs else []
        for i, r in zip(todo, post):
            post_valid[i] = r.valid
            if r.valid:
                cleaned = clean_solutions(r.value["solutions"])
                # the pass may remove or merge items but never invent new ones
                allowed = {_key(s["action"]) for s in raw_lists[i]}
                kept = [s for s in cleaned if _key(s["action"]) in allowed or _fuzzy_in(s["action"], allowed)]
                final_lists[i] = kept or raw_lists[i]
    sol_rows, status = [], []
    for i, r in enumerate(items.itertuples()):
        for j, s in enumerate(final_lists[i]):
            sol_rows.append({"dilemma_id": r.dilemma_id, "solution": j, "action": s["action"], "stance": s["stance"],
                             "negation_normalised": s["negation_normalised"]})
        status.append({"dilemma_id": r.dilemma_id, "valid": first[i].valid, "attempts": first[i].n_attempts,
                       "postprocess_valid": post_valid[i], "n_raw": len(raw_lists[i]),
                       "n_solutions": len(final_lists[i]), "raw": first[i].raw})
    return (pd.DataFrame(sol_rows, columns=["dilemma_id", "solution", "action", "stance", "negation_normalised"]),
            pd.DataFrame(status))


def _fuzzy_in(action: str, allowed: set[str]) -> bool:
    k = set(_key(action).split())
    return any(len(k & set(a.split())) >= max(1, int(0.6 * len(k))) for a in allowed)
