"""Candidate answers: each model gets only the dilemma and a natural request
for advice (no system prompt, nothing that marks an evaluation)."""

from __future__ import annotations

import pandas as pd

from ..models import ChatRequest, SamplingParams
from .prompts import render


def advice_request(dilemma: str, params: SamplingParams) -> ChatRequest:
    return ChatRequest.make(render("ask_advice", dilemma=dilemma), params)


def generate_answers(client, dilemmas: pd.DataFrame, params: SamplingParams,
                     max_attempts: int | None = None) -> pd.DataFrame:
    """Answers to the valid dilemmas (an empty dilemma cell is the empty string)."""
    todo = dilemmas[dilemmas["valid"].astype(bool)]
    reqs = [advice_request(d, params) for d in todo["dilemma"].fillna("")]

    def parse(text: str) -> str:
        if len(text.split()) < 2:
            raise ValueError("empty answer")
        return text.strip()

    res = client.generate_parsed(reqs, parse, max_attempts=max_attempts)
    out = todo[["dilemma_id"]].copy()
    out["model"] = client.spec.name
    out["answer"] = [r.value if r.valid else r.raw for r in res]
    out["n_words"] = [len(a.split()) for a in out["answer"]]
    out["valid"] = [r.valid for r in res]
    out["attempts"] = [r.n_attempts for r in res]
    return out.reset_index(drop=True)


def answer_counts(dilemmas: pd.DataFrame, out: pd.DataFrame) -> dict[str, int]:
    return {"answers": len(out), "valid": int(out["valid"].sum()), "invalid": int((~out["valid"]).sum()),
            "dilemmas_without_valid_text": int((~dilemmas["valid"].astype(bool)).sum())}
