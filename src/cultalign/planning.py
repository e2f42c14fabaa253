"""Paper scale on paper: requests, prompt and generated tokens of every model rule, and the GPU-hours
they imply, before anything runs (rule ``planning_gpu_hours``; docs/benchmarks.md).

Counts come from the workflow's own sizes: config values (models, countries, conditions, shards of
work) times input sizes (rows of an input file where it is present; else ``planning.input_sizes``,
which config/paper.yaml sets to the papers' published counts).  Prompt tokens are estimates: each
rule's real prompt is built by the study's own code (or its template rendered) on sample inputs
(the repository's demo inputs; fields a model writes upstream filled to their configured caps) and
counted with ``planning.tokenizer_model``'s tokenizer and chat template (SmolLM2's by default: an
approximation of every other model's tokenizer).  Generated tokens are upper bounds
(``max_new_tokens`` per request).  GPU-hours are an estimate:

    hours = gpus x (generated + prompt_token_cost x prompt) / generated_tokens_per_s / 3600

with the throughput of the model's parameter-count class (``planning.throughput``, defaults from a
published vLLM A100 benchmark).  API models use no GPU: their rows carry tokens and 0 GPU-hours.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from .core.paths import workflow_root
from .models.families import reasoning_reserve

COLUMNS = ["study", "rule", "model", "backend", "gpus", "params_b", "jobs", "requests", "prompt_tokens",
           "generated_tokens", "generated_tokens_per_s", "gpu_hours", "basis"]


def demo_dir() -> Path:
    """The demo inputs of the workflow (``resources/demo/``)."""
    return workflow_root() / "resources" / "demo"


# ---------------------------------------------------------------- arithmetic


@dataclass(frozen=True)
class Work:
    """The requests of one rule for one model: ``requests`` calls of ``prompt_tokens`` prompt tokens each
    (mean), at most ``max_new_tokens`` generated each (0: scoring only), in ``jobs`` Snakemake jobs."""

    study: str
    rule: str
    model: str
    jobs: int
    requests: int
    prompt_tokens: float
    max_new_tokens: int
    basis: str


def params_b(name: str, explicit: dict | None = None) -> float | None:
    """Parameter count (billions) of a model: ``planning.params_b[name]`` where given, else the
    ``<n>b`` in its name (``llama-3.1-70b-instruct`` -> 70, ``qwen3-30b-a3b`` -> 30); None if neither."""
    if explicit and name in explicit:
        return float(explicit[name])
    m = re.search(r"(?<![a-z0-9.])(\d+(?:\.\d+)?)b(?![a-z])", name.lower())
    return float(m.group(1)) if m else None


def throughput_of(p_b: float, classes: list[dict]) -> dict:
    """The first class (ascending ``max_params_b``) that holds a model of ``p_b`` billion parameters."""
    for c in sorted(classes, key=lambda c: c["max_params_b"]):
        if p_b <= c["max_params_b"]:
            return c
    raise ValueError(f"no planning.throughput class holds a model of {p_b:g}B parameters "
                     f"(largest: {max(c['max_params_b'] for c in classes)}B); add one")


def gpu_hours(gpus: int, prompt_tokens: float, generated_tokens: float, generated_tokens_per_s: float,
              prompt_token_cost: float) -> float:
    """GPU-hours of a job's tokens: gpus x (generated + cost x prompt) / throughput / 3600."""
    if generated_tokens_per_s <= 0:
        raise ValueError(f"generated_tokens_per_s must be > 0, not {generated_tokens_per_s}")
    return gpus * (generated_tokens + prompt_token_cost * prompt_tokens) / generated_tokens_per_s / 3600.0


def table(work: list[Work], models: dict, planning: dict) -> pd.DataFrame:
    """One row per (rule, model): totals and GPU-hours (0 for API models, which use none)."""
    rows = []
    for w in work:
        spec = models[w.model]
        backend = spec.get("backend", "")
        prompt = round(w.requests * w.prompt_tokens)
        # a reasoning model may generate its reasoning reserve besides the visible budget (models.<m>.reasoning_tokens)
        generated = w.requests * (w.max_new_tokens + reasoning_reserve(spec) if w.max_new_tokens else 0)
        if backend in ("vllm", "transformers"):
            p_b = params_b(w.model, planning.get("params_b"))
            if p_b is None:
                raise ValueError(f"model {w.model}: no parameter count in its name; set planning.params_b.{w.model}")
            gpus = int(spec.get("tensor_parallel_size") or 1)
            tps = float(throughput_of(p_b, planning["throughput"])["generated_tokens_per_s"])
            hours = gpu_hours(gpus, prompt, generated, tps, planning["prompt_token_cost"])
        else:
            p_b, gpus, tps, hours = None, 0, None, 0.0
        rows.append({"study": w.study, "rule": w.rule, "model": w.model, "backend": backend, "gpus": gpus,
                     "params_b": p_b, "jobs": w.jobs, "requests": w.requests, "prompt_tokens": prompt,
                     "generated_tokens": generated, "generated_tokens_per_s": tps, "gpu_hours": round(hours, 2),
                     "basis": w.basis})
    return pd.DataFrame(rows, columns=COLUMNS)


def totals(df: pd.DataFrame) -> pd.DataFrame:
    """Per study and overall: requests, tokens, GPU-hours."""
    cols = ["requests", "prompt_tokens", "generated_tokens", "gpu_hours"]
    out = df.groupby("study", sort=False)[cols].sum().reset_index()
    out = pd.concat([out, pd.DataFrame([{"study": "all", **df[cols].sum().to_dict()}])], ignore_index=True)
    out[cols[:3]] = out[cols[:3]].astype("int64")
    out["gpu_hours"] = out["gpu_hours"].round(1)
    return out


# ---------------------------------------------------------------- prompt tokens


class Tokens:
    """Token counts with one tokenizer and its chat template (an approximation of other models')."""

    def __init__(self, tokenizer):
        self.tok = tokenizer
        self._pool = " ".join((demo_dir() / "personas" / "corpus" / "usa.txt").read_text(encoding="utf-8").split())

    @classmethod
    def from_dir(cls, path: str | Path) -> Tokens:
        from transformers import AutoTokenizer

        return cls(AutoTokenizer.from_pretrained(str(path)))

    def text(self, s: str) -> int:
        return len(self.tok(s, add_special_tokens=False)["input_ids"])

    def chat(self, user: str | list[dict], system: str | None = None) -> int:
        msgs = user if isinstance(user, list) else [{"role": "user", "content": user}]
        if system:
            msgs = [{"role": "system", "content": system}, *msgs]
        ids = self.tok.apply_chat_template(msgs, add_generation_prompt=True, tokenize=True)
        return len(ids["input_ids"] if isinstance(ids, dict) or hasattr(ids, "keys") else ids)

    def filled(self, n_chars: int, pool: str | None = None) -> str:
        """Sample text of ``n_chars`` characters (a field a model writes, at its configured cap)."""
        pool = pool or self._pool
        return ((pool + " ") * (n_chars // max(len(pool), 1) + 1))[: max(n_chars, 0)]

    def filled_tokens(self, n_tokens: int, pool: str | None = None) -> str:
        """Sample text of ``n_tokens`` tokens (a model's answer at its max_new_tokens)."""
        pool = pool or self._pool
        ids = self.tok(pool, add_special_tokens=False)["input_ids"]
        ids = (ids * (n_tokens // max(len(ids), 1) + 1))[:n_tokens]
        return self.tok.decode(ids)

    def options(self, options: list[str]) -> int:
        """Tokens of scored continuations (each option once)."""
        return sum(self.text(" " + o) for o in options)


# ---------------------------------------------------------------- input sizes


def _size(given, read, what: str, key: str) -> int:
    """An input size: ``given`` (planning.input_sizes.<key>) when set, else ``read()`` from the input file."""
    if given is not None:
        return int(given)
    n = read()
    if n is None:
        raise ValueError(f"{what}: the input is not present; set planning.input_sizes.{key}")
    return int(n)


def _rows(path) -> int | None:
    p = Path(path)
    if not p.is_file():
        return None
    if p.suffix == ".json":
        return len(json.loads(p.read_text(encoding="utf-8")))
    return len(pd.read_csv(p, sep="\t" if p.suffix == ".tsv" else ",", dtype=str, keep_default_na=False))


# ---------------------------------------------------------------- the studies (each study's
# `plan` hook, cultalign.<study>.study, lists its model rules)


def plan(cfg: dict, tokens: Tokens, default_model: str | None = None) -> pd.DataFrame:
    """The planning table of a validated config (``cultalign.config.load_config``); ``default_model``:
    the model of rule smoke_generate (config ``default_model`` when not given)."""
    planning = cfg["planning"]
    sizes = planning.get("input_sizes") or {}
    from .studies import configured, registered

    studies = configured(cfg, cfg.get("studies") or registered())
    # rule smoke_generate (scripts/models/smoke_generate.py): two 24-token generations and one
    # yes/no item on the default model (config ``default_model``, given by the rule's param)
    smoke = default_model or cfg["default_model"]
    work: list[Work] = [Work("models", "smoke_generate", smoke, 1, 2, tokens.chat("Name one greeting custom in Japan."),
                             24, "2 generations"),
                        Work("models", "smoke_generate", smoke, 0, 1,
                             tokens.chat("Is it polite to bow when greeting in Japan? Answer Yes or No.")
                             + tokens.options(["Yes", "No"]), 0, "1 scored item")]
    for name in registered():  # registry order, whatever the order of `studies`
        if name in studies:
            work += studies[name].plan(cfg, sizes.get(name) or {}, tokens)
    df = table(work, cfg["models"], planning)
    # rows of one rule and model (pact_behaviour: generation + letter scoring) become one
    keys = ["study", "rule", "model", "backend", "gpus", "params_b", "generated_tokens_per_s"]
    agg = df.groupby(keys, sort=False, dropna=False).agg(
        jobs=("jobs", "sum"), requests=("requests", "sum"), prompt_tokens=("prompt_tokens", "sum"),
        generated_tokens=("generated_tokens", "sum"), gpu_hours=("gpu_hours", "sum"),
        basis=("basis", "; ".join)).reset_index()
    return agg[COLUMNS]
