"""Full-form dilemma extraction and solution extraction with post-processing.

All model outputs are structured (JSON schema: constrained decoding where
the backend supports it, always validated); failures are retried by the
model layer and recorded with ``valid=False``, never dropped.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, fields

import pandas as pd

from ..models import ChatRequest, SamplingParams
from .prompts import render

STANCES = ("advised", "not_advised")


@dataclass(frozen=True)
class DilemmaSettings:
    """Full-form dilemma extraction: the keys of config ``monopolet.extraction`` this stage uses."""

    temperature: float
    max_new_tokens: int
    max_dilemma_chars: int

    @classmethod
    def from_config(cls, section) -> "DilemmaSettings":
        """From a mapping (a config section, or a rule's params) holding every field."""
        return cls(**{f.name: section[f.name] for f in fields(cls)})

    def sampling(self, seed: int) -> SamplingParams:
        return SamplingParams.from_config(asdict(self), seed)


@dataclass(frozen=True)
class ExtractionSettings:
    """Solution extraction and its post-processing pass: the keys of config
    ``monopolet.extraction`` this stage uses."""

    temperature: float
    max_new_tokens: int
    max_solutions: int
    max_action_chars: int
    postprocess: bool

    @classmethod
    def from_config(cls, section) -> "ExtractionSettings":
        """From a mapping (a config section, or a rule's params) holding every field."""
        return cls(**{f.name: section[f.name] for f in fields(cls)})

    def sampling(self, seed: int) -> SamplingParams:
        return SamplingParams.from_config(asdict(self), seed)


def dilemma_schema(s: DilemmaSettings) -> dict:
    return {"type": "object", "additionalProperties": False, "required": ["dilemma"],
            "properties": {"dilemma": {"type": "string", "minLength": 10, "maxLength": s.max_dilemma_chars}}}


def solutions_schema(s: ExtractionSettings) -> dict:
    item = {"type": "object", "additionalProperties": False, "required": ["action", "stance"],
            "properties": {"action": {"type": "string", "minLength": 2, "maxLength": s.max_action_chars},
                           "stance": {"type": "string", "enum": list(STANCES)}}}
    return {"type": "object", "additionalProperties": False, "required": ["solutions"],
            "properties": {"solutions": {"type": "array", "maxItems": s.max_solutions, "items": item}}}


def usable_sections(sections: pd.DataFrame) -> pd.DataFrame:
    """The sections a dilemma is extracted from (status ``ok``), in table order."""
    return sections[sections["status"] == "ok"].reset_index(drop=True)


def extract_dilemmas(client, sections: pd.DataFrame, settings: DilemmaSettings, seed: int,
                     max_attempts: int | None = None) -> pd.DataFrame:
    params = settings.sampling(seed)
    reqs = [ChatRequest.make(render("extract_dilemma", summary=r.summary, section=r.section), params)
            for r in sections.itertuples()]
    res = client.generate_json(reqs, dilemma_schema(settings), max_attempts=max_attempts)
    out = sections[["dilemma_id", "episode_id", "summary"]].copy()
    out["dilemma"] = [r.value["dilemma"].strip() if r.valid else "" for r in res]
    out["valid"] = [r.valid for r in res]
    out["attempts"] = [r.n_attempts for r in res]
    out["raw"] = [r.raw for r in res]
    return out


def validity_counts(out: pd.DataFrame, rows: str) -> dict[str, int]:
    """``{rows: n, "valid": ..., "invalid": ...}`` of a table with a boolean ``valid`` column."""
    return {rows: len(out), "valid": int(out["valid"].sum()), "invalid": int((~out["valid"]).sum())}


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


def solution_items(dilemmas: pd.DataFrame, responses: pd.DataFrame, agent: str) -> tuple[pd.DataFrame, str]:
    """The (dilemma_id, dilemma, response) items of an agent and the prompt that extracts their
    solutions: the panel's responses are its sections (status ``ok``), a model's its valid answers."""
    dilemmas = dilemmas[dilemmas["valid"].astype(bool)][["dilemma_id", "dilemma"]]
    if agent == "panel":
        resp = responses[responses["status"] == "ok"][["dilemma_id", "section"]].rename(
            columns={"section": "response"})
        prompt = "extract_solutions_panel"
    else:
        resp = responses[responses["valid"].astype(bool)][["dilemma_id", "answer"]].rename(
            columns={"answer": "response"})
        prompt = "extract_solutions_answer"
    return dilemmas.merge(resp, on="dilemma_id"), prompt


def extract_solutions(client, items: pd.DataFrame, prompt: str, settings: ExtractionSettings, seed: int,
                      max_attempts: int | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """items: dilemma_id, dilemma, response.  Returns (solutions, per-dilemma status)."""
    schema = solutions_schema(settings)
    params = settings.sampling(seed)
    reqs = [ChatRequest.make(render(prompt, dilemma=r.dilemma, response=r.response), params)
            for r in items.itertuples()]
    first = client.generate_json(reqs, schema, max_attempts=max_attempts)
    raw_lists = [clean_solutions(r.value["solutions"]) if r.valid else [] for r in first]
    post_valid = [None] * len(items)
    final_lists = list(raw_lists)
    if settings.postprocess:
        todo = [i for i, sols in enumerate(raw_lists) if sols]
        preqs = [ChatRequest.make(render("postprocess_solutions", dilemma=items["dilemma"].iloc[i],
                                         solutions=json.dumps({"solutions": [{"action": s["action"],
                                                                              "stance": s["stance"]}
                                                                             for s in raw_lists[i]]},
                                                              ensure_ascii=False)),
                                  params) for i in todo]
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
    # (explicit columns: a shard or an agent without answered dilemmas gives empty tables, not a crash)
    return (pd.DataFrame(sol_rows, columns=["dilemma_id", "solution", "action", "stance", "negation_normalised"]),
            pd.DataFrame(status, columns=["dilemma_id", "valid", "attempts", "postprocess_valid", "n_raw",
                                          "n_solutions", "raw"]))


def solutions_table(sols: pd.DataFrame, status: pd.DataFrame, agent: str) -> tuple[pd.DataFrame, dict[str, int]]:
    """One row per (agent, dilemma) with its solutions as a JSON list (``solutions_io``), and its counts."""
    status = status.copy()
    status.insert(1, "agent", agent)
    status["solutions"] = [json.dumps(sols[sols["dilemma_id"] == d][["action", "stance", "negation_normalised"]]
                                      .to_dict("records"), ensure_ascii=False) for d in status["dilemma_id"]]
    counts = {"dilemmas": len(status), "valid": int(status["valid"].sum()) if len(status) else 0,
              "invalid": int((~status["valid"]).sum()) if len(status) else 0,
              "postprocess_invalid": int((status["postprocess_valid"] == False).sum()) if len(status) else 0,  # noqa: E712
              "solutions": len(sols), "negations_normalised": int(sols["negation_normalised"].sum())}
    return status, counts


def _fuzzy_in(action: str, allowed: set[str]) -> bool:
    k = set(_key(action).split())
    return any(len(k & set(a.split())) >= max(1, int(0.6 * len(k))) for a in allowed)
