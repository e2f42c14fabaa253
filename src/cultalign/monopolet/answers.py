"""Candidate answers: each model gets only the dilemma and a natural request
for advice (no system prompt, nothing that marks an evaluation).

Each answer records how its final attempt ended: ``finish_reason`` and
``completion_tokens`` as the model layer returns them, and ``truncated``
(``is_truncated``) when the answer was cut at ``max_new_tokens`` (the paper's
2,048), so the answer statistics count cut answers instead of taking them as
complete."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pandas as pd

from ..core.seeds import derive_seed
from ..models import ChatRequest, SamplingParams
from .prompts import render

# vLLM's neutral default when the model folder's generation_config.json sets no temperature
# (vllm ChatCompletionRequest._DEFAULT_SAMPLING_PARAMS; ModelConfig.get_diff_sampling_param
# reads temperature / top_p from generation_config.json with generation_config="auto")
VLLM_DEFAULT_TEMPERATURE = 1.0


def answer_temperature(section: dict[str, Any], model: str) -> float | None:
    """The configured answer temperature of ``model``: ``temperature_by_model[model]`` when the
    model is listed there, else the global ``temperature``; None = the serving stack's default."""
    by_model = section.get("temperature_by_model") or {}
    value = by_model[model] if model in by_model else section.get("temperature")
    if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0):
        key = "monopolet.answers." + (f"temperature_by_model.{model}" if model in by_model else "temperature")
        raise ValueError(f"{key}: expected a number >= 0 or null (the stack's default), got {value!r}")
    return None if value is None else float(value)


def stack_default_sampling(spec: dict[str, Any]) -> tuple[float | None, float, str]:
    """(temperature, top_p, source) the model's serving stack uses when a request sets none.

    * ``openai``: nothing is sent (temperature None), the provider's default applies.
    * ``vllm``: ``temperature`` / ``top_p`` of the model folder's ``generation_config.json``,
      else vLLM's 1.0 / 1.0 (what ``LLM.generate`` and ``vllm serve`` do with the default
      ``generation_config="auto"``).
    * ``transformers``: ``generate`` samples only when ``generation_config.json`` sets
      ``do_sample: true`` (then its temperature, default 1.0, and top_p); else greedy (0.0)."""
    backend = spec.get("backend", "transformers")
    if backend == "openai":
        return None, 1.0, "provider default (not sent)"
    path = Path(spec.get("path") or "") / "generation_config.json"
    gen: dict[str, Any] = {}
    if spec.get("path") and path.is_file():
        try:
            gen = json.loads(path.read_text())
        except json.JSONDecodeError as e:
            raise ValueError(f"{path}: not valid JSON ({e}); the answer temperature default is read from it") from e
    src = f"{path}" if gen else "no generation_config.json"
    top_p = float(gen.get("top_p") or 1.0)
    if backend == "vllm":
        t = gen.get("temperature")
        return (float(t) if t is not None else VLLM_DEFAULT_TEMPERATURE), top_p, f"vllm default ({src})"
    if gen.get("do_sample"):
        return float(gen.get("temperature") or 1.0), top_p, f"transformers default, do_sample ({src})"
    return 0.0, 1.0, f"transformers default, greedy ({src})"


def answer_setup(section: dict[str, Any], llm: dict[str, Any], seed: int) -> tuple[dict, SamplingParams, dict]:
    """The model param (``llm_of``) and sampling settings of one answer model, and a record of
    where its temperature came from.  A null temperature on the openai backend leaves temperature
    and top_p out of the requests (added to the spec's ``unsupported_params``)."""
    name = llm["name"]
    t = answer_temperature(section, name)
    base = {**section, "temperature": 0.0}
    record = {"model": name, "temperature": t, "source": "config"}
    if t is not None:
        return llm, SamplingParams.from_config({**base, "temperature": t}, seed), record
    llm = copy.deepcopy(llm)
    spec = llm["spec"]
    t, top_p, source = stack_default_sampling(spec)
    record.update(temperature=t, top_p=top_p, source=source)
    if t is None:
        spec["unsupported_params"] = sorted(set(spec.get("unsupported_params") or ()) | {"temperature", "top_p"})
        return llm, SamplingParams.from_config(base, seed), record
    return llm, SamplingParams.from_config({**base, "temperature": t, "top_p": top_p}, seed), record


def advice_request(dilemma: str, params: SamplingParams) -> ChatRequest:
    return ChatRequest.make(render("ask_advice", dilemma=dilemma), params)


# finish reasons of an output cut at the token cap (vLLM / OpenAI-compatible APIs / transformers:
# "length"; some providers say "max_tokens")
CUT_REASONS = ("length", "max_tokens")


def is_truncated(finish_reason: str | None, completion_tokens: int | None, max_new_tokens: int) -> bool:
    """Cut at the token cap: the finish reason says so where the model layer gives one, else the
    completion's token count reached the cap."""
    if finish_reason:
        return finish_reason in CUT_REASONS
    return completion_tokens is not None and completion_tokens >= max_new_tokens


def generate_answers(client, dilemmas: pd.DataFrame, params: SamplingParams,
                     max_attempts: int | None = None) -> pd.DataFrame:
    """Answers to the valid dilemmas (an empty dilemma cell is the empty string), with how the
    final attempt ended (``finish_reason``, ``completion_tokens``, ``truncated``); each dilemma is
    asked with its own seed, ``derive_seed(params.seed, "monopolet", "text", "answers", dilemma_id)``."""
    todo = dilemmas[dilemmas["valid"].astype(bool)]
    reqs = [advice_request(d, params.with_seed(derive_seed(params.seed, "monopolet", "text", "answers", i)))
            for i, d in zip(todo["dilemma_id"], todo["dilemma"].fillna(""))]

    def parse(text: str) -> str:
        if len(text.split()) < 2:
            raise ValueError("empty answer")
        return text.strip()

    res = client.generate_parsed(reqs, parse, max_attempts=max_attempts)
    # how each final attempt ended, as generate_parsed records it ("" / -1 where it has no record)
    last = [r.attempts[-1] if r.attempts else {} for r in res]
    finish = [a.get("finish_reason") or "" for a in last]
    tokens = [int(a["completion_tokens"]) if a.get("completion_tokens") is not None else -1 for a in last]
    out = todo[["dilemma_id"]].copy()
    out["model"] = client.spec.name
    out["answer"] = [r.value if r.valid else r.raw for r in res]
    out["n_words"] = [len(a.split()) for a in out["answer"]]
    out["valid"] = [r.valid for r in res]
    out["attempts"] = [r.n_attempts for r in res]
    out["finish_reason"] = finish
    out["completion_tokens"] = tokens
    out["truncated"] = [is_truncated(f, t if t >= 0 else None, params.max_new_tokens) for f, t in zip(finish, tokens)]
    return out.reset_index(drop=True)


def answer_counts(dilemmas: pd.DataFrame, out: pd.DataFrame) -> dict[str, int]:
    return {"answers": len(out), "valid": int(out["valid"].sum()), "invalid": int((~out["valid"]).sum()),
            "truncated": int(out["truncated"].sum()) if "truncated" in out else 0,
            "dilemmas_without_valid_text": int((~dilemmas["valid"].astype(bool)).sum())}
