"""transformers backend (CPU here, any GPU elsewhere).

* generation: a decoding loop of its own (``_decode_loop``) after a grouped
  prefill: prompts sharing a token prefix of at least
  ``SHARED_PREFIX_MIN_TOKENS`` (a scenario asked about in several questions)
  run it once, the others run as one left-padded batch; rows leave the batch
  when they end (EOS, a stop string, ``max_new_tokens``, a complete JSON
  object). JSON-schema requests are masked per row by xgrammar's matcher, as
  its logits processor does inside ``generate``. Checked on the first batch
  against a full forward over its first row; transformers' ``generate``
  decodes if that check fails, and for models whose generation config asks
  for logits processing (``loop_blockers``). Sampled requests draw from their own seeded generator
  (``PerRequestSampler``), so a sampled output depends only on its request,
  never on the other requests of its batch;
* option scoring: the shared prompt prefix runs once per item. Packed path
  (default): prefix and all options in one sequence with a block attention
  mask, logits only where an option token is predicted. Cached path: the
  prefix's KV cache expanded to the options, scored as one padded batch; the
  packed path is checked against it on the first item and the cached path is
  used if they disagree or the model rejects a custom mask. Items of one
  ``score`` call whose prompts share a token prefix of at least
  ``SHARED_PREFIX_MIN_TOKENS`` (the chat preamble and a scenario asked about
  in several questions) are scored as a group: the shared prefix runs once
  and each item's packed forward reads its KV cache (checked against the
  packed path on the first group). ``score_full``
  (every option as its own full prompt) is the reference both are tested
  against, and the fallback when tokenisation at the prefix/option boundary
  differs.
"""

from __future__ import annotations

import functools
import logging
import math
from typing import Sequence

from .types import Generation, ModelSpec, OptionScores, SamplingParams

log = logging.getLogger(__name__)


# packed option scoring attends over prompt + all options at once (a length^2 mask); items
# longer than this are scored through the cached-prefix path instead
PACKED_MAX_TOKENS = 2048
# items whose prompts share at least this many leading tokens are scored with that prefix run once
SHARED_PREFIX_MIN_TOKENS = 32
# nats a faster scoring or decoding path may differ from its reference on the first check, by weight dtype:
# both paths round in that dtype, in other orders. bfloat16 keeps 8 bits of mantissa (float16 11, float32
# 24): on SmolLM2 its packed and cached scorers differ by up to 0.44 nats on 7-token options, its decoding
# loop and a full forward by 0.11 nats on 64 chosen tokens (docs/personas.md, "bfloat16")
CHECK_TOLERANCE = {"float32": 1e-3, "float16": 5e-2, "bfloat16": 1.0}


def shared_prefix_groups(prompts: Sequence[Sequence[int]], min_tokens: float) -> list[tuple[list[int], int]]:
    """Groups of prompts (token id lists) sharing at least ``min_tokens`` leading tokens, as (indices,
    prefix length). The prompts are sorted, so those sharing a prefix are neighbours; a group's prefix is
    the longest shared by all its members, kept one token short of its shortest member (every member
    still feeds its own last prompt token). Prompts sharing too little with their neighbours form groups
    of one (prefix length 0). A prompt joins its neighbour's group only if that saves at least as many
    positions as the group saved without it (``members x shared >= (members - 1) x prefix``); otherwise
    it starts a group of its own. Every index appears in exactly one group."""
    order = sorted(range(len(prompts)), key=lambda i: list(prompts[i]))
    groups: list[tuple[list[int], int]] = []
    for i in order:
        if groups:
            members, n = groups[-1]
            prev = prompts[members[-1]]
            lcp = 0
            cap = min(len(prev), len(prompts[i])) - 1
            while lcp < cap and prev[lcp] == prompts[i][lcp]:
                lcp += 1
            shared = min(lcp, n)
            saved_before = (len(members) - 1) * n
            if shared >= min_tokens and len(members) * shared >= saved_before:
                groups[-1] = (members + [i], shared)
                continue
        groups.append(([i], len(prompts[i])))
    return [(m, n if len(m) > 1 else 0) for m, n in groups]


class PerRequestSampler:
    """Sampling with one random stream per request, as a logits processor for greedy decoding.

    Each row gets its own ``torch.Generator`` seeded with its request's seed;
    at every step the row's scores are divided by the temperature, cut to the
    nucleus (``top_p``, as transformers' top-p warper: the smallest set of
    tokens whose probability reaches ``top_p``, at least one token) and
    perturbed with Gumbel noise drawn from the row's generator, so that the
    argmax is a sample from the filtered softmax (the Gumbel-max trick).  A row
    draws exactly one noise vector per step whatever the batch, so its output
    is the same in any batch, batch size, shard or resumed run (up to the
    float rounding of padded batches, as greedy decoding).
    """

    def __init__(self, seeds: Sequence[int], temperature: float, top_p: float = 1.0):
        import torch

        if temperature <= 0:
            raise ValueError("PerRequestSampler needs a temperature > 0 (temperature 0 is greedy decoding)")
        self.temperature = float(temperature)
        self.top_p = float(top_p)
        self.generators = [torch.Generator().manual_seed(int(s) & 0xFFFFFFFFFFFFFFFF) for s in seeds]

    def __call__(self, input_ids, scores):
        return self.perturb(scores)

    def perturb(self, scores, rows: Sequence[int] | None = None):
        """``scores``: one row per request, or per request in ``rows`` (indices into ``seeds``) when
        some requests have left the batch."""
        import torch

        scores = scores.float() / self.temperature
        if self.top_p < 1.0:
            sorted_scores, order = torch.sort(scores, descending=False, dim=-1)
            cum = sorted_scores.softmax(dim=-1).cumsum(dim=-1)
            drop_sorted = cum <= (1.0 - self.top_p)
            drop_sorted[..., -1:] = False  # keep at least the most likely token
            drop = drop_sorted.scatter(-1, order, drop_sorted)
            scores = scores.masked_fill(drop, float("-inf"))
        vocab = scores.shape[-1]
        gens = self.generators if rows is None else [self.generators[i] for i in rows]
        u = torch.stack([torch.rand(vocab, generator=g) for g in gens]).to(scores.device)
        gumbel = -torch.log(-torch.log(u.clamp_(min=1e-20)))
        return scores + gumbel


def use_onednn_linear(model, rtol: float = 1e-3, pack_rows: int = 16) -> int:
    """Run the model's ``nn.Linear`` layers through oneDNN on the CPU; returns how many.

    torch's default CPU linear kernel (MKL sgemm/sgemv) reads weights at roughly half
    the memory bandwidth oneDNN reaches on AMD EPYC (measured on the CI machine:
    the 49152x576 output layer in 7.5 ms vs 2.7 ms at batch 1, 16.3 vs 6.1 ms at
    batch 16). Decoding a small model is bound by reading weights, so this speeds
    generation and scoring. With ``pack_rows`` > 0 each weight is also reordered once
    into oneDNN's blocked layout for that many rows (``_reorder_linear_weight``), so the
    kernel does not reorder it on every call: 1.2-2.5x faster per call from 5 to 1,000
    rows at the model's shapes on the CI machine (docs/benchmarks.md). The reordered
    copies are kept next to the weights (the linear layers' memory once more).
    The kernel is checked against ``F.linear`` on the first layer, packed first, then
    unpacked; on any error or disagreement of both nothing is changed and 0 is returned.
    """
    import types

    import torch

    linears = [m for m in model.modules() if isinstance(m, torch.nn.Linear)]
    if not linears or not torch.backends.mkldnn.is_available():
        return 0
    op = torch.ops.mkldnn._linear_pointwise

    def prepared(weight, pack: bool):
        if not pack:
            return weight
        with torch.no_grad():
            return torch.ops.mkldnn._reorder_linear_weight(weight.detach(), pack_rows)

    def check(pack: bool) -> str | None:
        """None if the kernel (with packed weights or not) agrees with F.linear on the first layer."""
        probe = linears[0]
        try:
            with torch.inference_mode():
                x = torch.randn(2, 3, probe.in_features, dtype=probe.weight.dtype)
                ref = torch.nn.functional.linear(x, probe.weight, probe.bias).float()
                got = op(x, prepared(probe.weight, pack), probe.bias, "none", [], "").float()
            if got.shape != ref.shape:
                return f"shape {tuple(got.shape)} != {tuple(ref.shape)}"
            err = float((got - ref).abs().max() / ref.abs().max().clamp(min=1e-12))
            tol = rtol if probe.weight.dtype == torch.float32 else 2e-2
            return f"relative difference {err:.2e} > {tol:g}" if err > tol else None
        except Exception as exc:  # noqa: BLE001 - any failure means: not this way
            return f"{type(exc).__name__}: {exc}"

    pack = pack_rows > 0
    why = check(pack)
    if why and pack:
        log.info("oneDNN linear kernel: weights not reordered (%s)", why)
        pack, why = False, check(False)
    if why:
        log.warning("oneDNN linear kernel not used (%s); keeping torch's", why)
        return 0

    def forward(self, x):
        return op(x, self.weight, self.bias, "none", [], "")

    def forward_packed(self, x):
        return op(x, self.onednn_weight, self.bias, "none", [], "")

    for m in linears:
        if pack:  # a plain tensor attribute: not a parameter or buffer, so state_dict is unchanged
            m.onednn_weight = prepared(m.weight, True)
        m.forward = types.MethodType(forward_packed if pack else forward, m)
    log.info("oneDNN linear kernel on %d layers, weights %s", len(linears),
             f"reordered for {pack_rows} rows" if pack else "as stored")
    return len(linears)


def growing_kv_layer(keys, values, n: int):
    """A transformers KV cache layer over preallocated buffers ``keys``/``values`` of shape
    ``[batch, heads, capacity, head_dim]``, filled up to position ``n``. Its keys and values are views of
    the first positions, and a decode step writes its token in place where transformers' ``DynamicLayer``
    concatenates, copying the whole cache every step. Past the capacity the buffers grow (doubling)."""
    return _growing_kv_layer_class()(keys, values, n)


@functools.cache
def _growing_kv_layer_class():
    """The class behind ``growing_kv_layer``, defined once on first use (transformers imported lazily)."""
    import torch
    from transformers.cache_utils import DynamicLayer

    class GrowingKVLayer(DynamicLayer):
        def __init__(self, keys, values, n: int):
            super().__init__()
            self._k, self._v, self._n = keys, values, n
            self.device, self.is_initialized = keys.device, True
            self._views()

        def _views(self):
            self.keys, self.values = self._k[..., : self._n, :], self._v[..., : self._n, :]

        def update(self, key_states, value_states, *args, **kwargs):
            n, add = self._n, key_states.shape[-2]
            if n + add > self._k.shape[-2]:
                self._k, self._v = (torch.cat([b, b.new_zeros(*b.shape[:-2], max(add, n), b.shape[-1])], -2)
                                    for b in (self._k, self._v))
            self._k[..., n : n + add, :] = key_states
            self._v[..., n : n + add, :] = value_states
            self._n = n + add
            self._views()
            return self.keys, self.values

        def batch_select_indices(self, indices):
            self._k, self._v = self._k[indices], self._v[indices]
            self._views()

        def reset(self) -> None:  # empty, buffers kept (DynamicLayer's would drop them)
            self._n = 0
            self._views()

        def crop(self, tokens_to_remove: int) -> None:
            if tokens_to_remove > 0:
                raise ValueError("crop takes a negative number of positions to remove")
            self._n -= abs(tokens_to_remove)
            self._views()

    return GrowingKVLayer


def token_bounded_ranges(lens: Sequence[int], max_new_tokens: int, bound: int) -> list[tuple[int, int]]:
    """Consecutive ranges of a batch of prompts (``lens``: their token counts) in which rows x (longest
    prompt + ``max_new_tokens``) stays within ``bound`` token positions; a row alone may exceed it."""
    ranges, lo, longest = [], 0, 0
    for i, n in enumerate(lens):
        if i > lo and (i - lo + 1) * (max(longest, n) + max_new_tokens) > bound:
            ranges.append((lo, i))
            lo, longest = i, n
        else:
            longest = max(longest, n)
    if lens:
        ranges.append((lo, len(lens)))
    return ranges


# generation-config fields whose non-default values add logits processors that the decoding loop
# does not apply (then transformers' generate decodes)
_LOOP_NEUTRAL = {"repetition_penalty": (None, 1.0), "encoder_repetition_penalty": (None, 1.0),
                 "no_repeat_ngram_size": (None, 0), "bad_words_ids": (None,), "suppress_tokens": (None,),
                 "begin_suppress_tokens": (None,), "forced_bos_token_id": (None,), "forced_eos_token_id": (None,),
                 "min_length": (None, 0), "min_new_tokens": (None, 0), "sequence_bias": (None,),
                 "exponential_decay_length_penalty": (None,), "num_beams": (None, 1)}


def loop_blockers(generation_config) -> list[str]:
    """The fields of a generation config that ask for processing the decoding loop does not do."""
    return [k for k, ok in _LOOP_NEUTRAL.items() if getattr(generation_config, k, None) not in ok]


def precision_note(name: str, device: str, dtype: str) -> dict:
    """Log and return the precision a model computes in (``cpu.precision_record``): on the CPU the
    CPU's model and its bfloat16 support; bfloat16 without native support (``emulated``) is a warning,
    since it then runs slower than float32."""
    from .cpu import precision_record

    rec = precision_record(dtype, device)
    if device == "cpu":
        level = logging.WARNING if dtype == "bfloat16" and rec["cpu_bf16"] in ("emulated", "unknown") else logging.INFO
        log.log(level, "%s: weights in %s on the CPU (%s; bfloat16 support: %s)", name, dtype, rec["cpu"],
                rec["cpu_bf16"])
    else:
        log.info("%s: weights in %s on %s", name, dtype, device)
    return rec


def _torch_dtype(name: str):
    import torch

    return {"auto": "auto", "float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}[name]


class TransformersBackend:
    def __init__(self, spec: ModelSpec):
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        self.spec = spec
        if spec.threads:
            torch.set_num_threads(spec.threads)
        self.device = "cuda" if torch.cuda.is_available() else "cpu"
        dtype = _torch_dtype(spec.dtype)
        if dtype == "auto" and self.device == "cpu":
            dtype = torch.float32
        self.tokenizer = AutoTokenizer.from_pretrained(spec.location, revision=spec.revision)
        if self.tokenizer.pad_token_id is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.model = AutoModelForCausalLM.from_pretrained(spec.location, revision=spec.revision, dtype=dtype)
        self.model.to(self.device).eval()
        self.precision = precision_note(spec.name, self.device, str(self.model.dtype).removeprefix("torch."))
        self.linear_kernel = "torch"
        self._choose_linear_kernel(eager=not spec.compile)
        # generation's prefill and decode steps: the model itself, or its torch.compile'd forward
        self._step = self.model
        self._compiled_ok: bool | None = None if spec.compile else False  # checked on the first batch
        self._grammar_compiler = None
        import inspect

        fwd = inspect.signature(self.model.forward).parameters
        # transformers >= 5.2x renamed the forward argument past_key_values -> cache
        self._cache_kw = "cache" if "cache" in fwd else "past_key_values"
        # scoring needs logits at a few positions only; skip the output layer elsewhere
        self._keep_kw = "logits_to_keep" if "logits_to_keep" in fwd else None
        self._packed_ok: bool | None = None  # packed option scoring checked on the first item
        # how far (nats) a faster path may be from its reference when first checked (CHECK_TOLERANCE)
        self._check_tol = CHECK_TOLERANCE.get(str(self.model.dtype).removeprefix("torch."), 5e-2)
        self._shared_ok: bool | None = None  # shared-prefix scoring checked on the first group
        eos = self.model.generation_config.eos_token_id
        self._eos = set(eos if isinstance(eos, list) else [] if eos is None else [eos])
        # the decoding loop applies no logits processor of the model's generation config: where the
        # config asks for one (a repetition penalty, suppressed tokens...), transformers' generate decodes
        blockers = loop_blockers(self.model.generation_config)
        self._loop_ok: bool | None = False if blockers else None  # the loop is checked on the first batch
        if blockers:
            log.info("%s: decoding through transformers' generate (generation config sets %s)", spec.name,
                     ", ".join(blockers))

    def _keep(self, n: int) -> dict:
        """Forward kwargs computing logits for the last ``n`` positions only (where the model supports it)."""
        return {self._keep_kw: n} if self._keep_kw else {}

    def _check_once(self, flag: str, what: str, instead: str, fast, distance, fallback):
        """Run a faster path once against its reference and record in ``flag`` whether it is used from
        then on. ``fast()`` gives the fast path's result; ``distance(result)`` gives (nats to the
        reference, what was compared). Within ``self._check_tol`` the result is returned; above it, or on
        any error of either (e.g. a model without custom masks or cache cropping), ``fallback()``'s, with
        a warning naming ``instead`` (what computes from then on)."""
        try:
            out = fast()
            diff, against = distance(out)
            ok, why = diff <= self._check_tol, f"max |diff| {against} {diff:.2e} nats"
        except Exception as exc:  # noqa: BLE001 - any failure means: not this way
            ok, why = False, f"{type(exc).__name__}: {exc}"
        setattr(self, flag, ok)
        log.log(logging.INFO if ok else logging.WARNING, "%s %s (%s, tolerance %g)", what,
                "in use" if ok else f"NOT used; {instead}", why, self._check_tol)
        return out if ok else fallback()

    # -- generation --------------------------------------------------------
    def _compiled_grammar(self, schema: str):
        """The JSON schema compiled by xgrammar for this tokenizer (compact JSON: with free whitespace
        small models fill max_new_tokens with newlines)."""
        import xgrammar as xgr

        if self._grammar_compiler is None:
            info = xgr.TokenizerInfo.from_huggingface(self.tokenizer, vocab_size=self.model.config.vocab_size)
            self._grammar_compiler = xgr.GrammarCompiler(info)
        return self._grammar_compiler.compile_json_schema(schema, any_whitespace=False)

    def _logits_processor(self, schema: str | None):
        if schema is None:
            return None
        import xgrammar as xgr

        return [xgr.contrib.hf.LogitsProcessor(self._compiled_grammar(schema))]

    def generate(self, prompts: Sequence[str], params: SamplingParams, schema: str | None = None,
                 messages=None, seeds: Sequence[int] | None = None) -> list[Generation]:
        if not prompts:
            return []
        seeds = list(seeds) if seeds else [params.seed] * len(prompts)
        ids = self.tokenizer(list(prompts), add_special_tokens=False)["input_ids"]
        gens: list[Generation] = []
        for lo, hi in self._sub_batches(ids, params.max_new_tokens):
            gens += self._generate_batch(prompts[lo:hi], ids[lo:hi], params, schema, seeds[lo:hi])
        return gens

    def _sub_batches(self, ids: list[list[int]], max_new_tokens: int) -> list[tuple[int, int]]:
        if not self.spec.max_batch_tokens or len(ids) < 2:
            return [(0, len(ids))]
        return token_bounded_ranges([len(p) for p in ids], max_new_tokens, self.spec.max_batch_tokens)

    def _generate_batch(self, prompts: Sequence[str], ids: list[list[int]], params: SamplingParams,
                        schema: str | None, seeds: Sequence[int]) -> list[Generation]:
        """One sub-batch: ``prompts`` and their token ids (without special tokens)."""
        if self._loop_ok is False:
            return self._generate_hf(prompts, params, schema, seeds)
        if self._loop_ok:
            if self._compiled_ok is None:
                eager = self._decode_loop(ids, params, seeds, schema=schema)[0]
                return self._generations(ids, self._compiled_check(ids, params, seeds, schema, eager), params)
            return self._generations(ids, self._decode_loop(ids, params, seeds, schema=schema)[0], params)
        first: list = []

        def fast():  # first batch: decoded with row 0's chosen-token log-probs traced
            new, trace = self._decode_loop(ids, params, seeds, check=True, schema=schema)
            first.append(new)
            return self._generations(ids, new, params), new[0], trace

        def distance(run):  # row 0's chosen tokens against one full forward
            _, row0, trace = run
            ref = self._chosen_logprobs(ids[0], row0[: len(trace)])
            diff = max((abs(a - b) for a, b in zip(trace, ref)), default=0.0)
            return diff, f"of row 0's {len(trace)} chosen tokens to a full forward"

        gens = self._check_once("_loop_ok", "grouped-prefill decoding", "transformers' generate decodes",
                                fast, distance, lambda: (self._generate_hf(prompts, params, schema, seeds),))[0]
        if self._loop_ok and self._compiled_ok is None:  # the same batch checks the compiled forward
            self._compiled_check(ids, params, seeds, schema, first[0])
        return gens

    def _choose_linear_kernel(self, eager: bool) -> None:
        """The linear layers on the kernel ``cpu_linear`` names (oneDNN on the CPU, if its check passes) when
        decoding is ``eager``; while compiled decoding may be used they stay on torch's (inductor packs the
        weights of the graphs it compiles itself; oneDNN's packed copies are opaque to it).  Called at load
        and again when compiled decoding is given up: without that the fallback ran 0.7-0.8x as fast as a
        run without ``compile``."""
        if eager and self.device == "cpu" and self.spec.cpu_linear == "onednn" and self.linear_kernel != "onednn" \
                and use_onednn_linear(self.model):
            self.linear_kernel = "onednn"
        log.info("%s: linear layers on %s use the %s kernel", self.spec.name, self.device, self.linear_kernel)

    def _compiled_check(self, ids: list[list[int]], params: SamplingParams, seeds: Sequence[int],
                        schema: str | None, eager: list[list[int]]) -> list[list[int]]:
        """With ``compile``, the first batch decoded by the loop (``eager``: its tokens) is decoded again
        through the compiled forward (compile time logged on its own); the compiled path is kept only if
        every row's tokens are the same, else generation stays eager (with a warning). Returns ``eager``."""
        import time

        import torch

        t0 = time.perf_counter()
        try:
            self._step = torch.compile(self.model.forward, dynamic=True)
            compiled = self._decode_loop(ids, params, seeds, schema=schema)[0]
            why = None if compiled == eager else \
                f"{sum(a != b for a, b in zip(compiled, eager))} of {len(ids)} rows decode other tokens"
        except Exception as exc:  # noqa: BLE001 - any failure means: not this way
            lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
            cause = next((ln for ln in lines[1:] if "Error:" in ln), "")  # inductor wraps the real error
            why = f"{type(exc).__name__}: {' '.join(lines[:1] + [cause]).strip()}"
        self._compiled_ok = why is None
        if why:
            self._step = self.model
            log.warning("%s: compiled decoding NOT used (%s); decoding eagerly", self.spec.name, why)
            self._choose_linear_kernel(eager=True)
        else:
            log.info("%s: compiled decoding in use: the first batch's %d rows decode the eager tokens "
                     "(compile and first compiled batch %.1f s)", self.spec.name, len(ids), time.perf_counter() - t0)
        return eager

    def _generate_hf(self, prompts: Sequence[str], params: SamplingParams, schema: str | None,
                     seeds: Sequence[int]) -> list[Generation]:
        """transformers' ``generate`` over one left-padded batch (the fallback, and the reference in tests)."""
        import torch

        tok = self.tokenizer
        tok.padding_side = "left"
        enc = tok(list(prompts), return_tensors="pt", padding=True, add_special_tokens=False).to(self.device)
        kwargs = dict(max_new_tokens=params.max_new_tokens, pad_token_id=tok.pad_token_id,
                      do_sample=False, temperature=None, top_p=None, top_k=None)
        processors = self._logits_processor(schema) or []
        if params.temperature > 0:  # sampled: greedy argmax over per-request Gumbel-perturbed scores
            processors.append(PerRequestSampler(seeds, params.temperature, params.top_p))
        if params.stop:
            kwargs.update(stop_strings=list(params.stop), tokenizer=tok)
        if processors:
            kwargs["logits_processor"] = processors
        with torch.inference_mode():
            out = self.model.generate(**enc, **kwargs)
        n_in = enc["input_ids"].shape[1]
        return [self._generation(row[n_in:].tolist(), int(row_in.sum()), params)
                for row_in, row in zip(enc["attention_mask"], out)]

    def _generations(self, ids: list[list[int]], new: list[list[int]], params: SamplingParams) -> list[Generation]:
        return [self._generation(n, len(p), params) for p, n in zip(ids, new)]

    def _generation(self, new: list[int], prompt_tokens: int, params: SamplingParams) -> Generation:
        """A row's generated token ids as a Generation: pad tokens are not counted, the text is cut at the
        first stop string."""
        tok = self.tokenizer
        n_new = sum(t != tok.pad_token_id for t in new) if tok.pad_token_id is not None else len(new)
        text = tok.decode(new, skip_special_tokens=True)
        finish = "length" if n_new >= params.max_new_tokens else "stop"
        for s in params.stop:
            j = text.find(s)
            if j >= 0:
                text, finish = text[:j], "stop"
        return Generation(text=text, finish_reason=finish, prompt_tokens=prompt_tokens, completion_tokens=n_new)

    def _decode_loop(self, ids: list[list[int]], params: SamplingParams, seeds: Sequence[int],
                     check: bool = False, schema: str | None = None) -> tuple[list[list[int]], list[float]]:
        """Greedy (or per-request sampled) decoding after a grouped prefill (``_prefill``); rows leave the
        batch when they end (EOS, a stop string, ``max_new_tokens`` or, with a JSON ``schema``, their
        grammar complete). With a schema, each row's xgrammar matcher masks the tokens its JSON cannot
        continue with before the choice, as xgrammar's logits processor does inside ``generate``.
        Returns each row's new token ids and, with ``check``, the log-probs of row 0's chosen tokens
        under the raw logits (for the first batch's check; empty otherwise)."""
        import torch

        matchers, bitmask = None, None
        if schema is not None:
            import xgrammar as xgr

            compiled = self._compiled_grammar(schema)
            matchers = [xgr.GrammarMatcher(compiled) for _ in ids]
            bitmask = xgr.allocate_token_bitmask(len(ids), compiled.tokenizer_info.vocab_size)
        sampler = PerRequestSampler(seeds, params.temperature, params.top_p) if params.temperature > 0 else None
        stops = list(params.stop)
        tail = max((len(s) for s in stops), default=0) + 4  # tokens enough to hold any stop string
        tok = self.tokenizer
        new: list[list[int]] = [[] for _ in ids]
        trace: list[float] = []
        with torch.inference_mode():
            logits, cache, mask = self._prefill(ids, room=params.max_new_tokens)
            lens = torch.tensor([len(p) for p in ids], device=self.device)
            active, step = list(range(len(ids))), 0
            while True:
                scores = logits.float()
                raw0 = torch.log_softmax(scores[0], dim=-1) if check and active[0] == 0 else None
                if matchers:
                    for j, i in enumerate(active):
                        matchers[i].fill_next_token_bitmask(bitmask, j)
                    xgr.apply_token_bitmask_inplace(scores, bitmask[: len(active)].to(scores.device))
                chosen = (sampler.perturb(scores, active) if sampler else scores).argmax(-1)
                if raw0 is not None:
                    trace.append(float(raw0[chosen[0]]))
                keep = []
                for j, (i, t) in enumerate(zip(active, chosen.tolist())):
                    new[i].append(t)
                    if matchers and not matchers[i].accept_token(t):
                        raise RuntimeError(f"row {i}: the grammar rejected token {t}, which its mask allowed")
                    if t in self._eos or len(new[i]) >= params.max_new_tokens:
                        continue
                    if matchers and matchers[i].is_terminated():
                        continue
                    if stops and any(s in tok.decode(new[i][-tail:], skip_special_tokens=True) for s in stops):
                        continue
                    keep.append(j)
                if not keep:
                    return new, trace
                if len(keep) < len(active):  # finished rows leave the batch
                    sel = torch.tensor(keep, device=self.device)
                    cache.batch_select_indices(sel)
                    mask, chosen, active = mask[sel], chosen[sel], [active[j] for j in keep]
                mask = torch.cat([mask, mask.new_ones(len(active), 1)], dim=1)
                out = self._step(input_ids=chosen.unsqueeze(1), attention_mask=mask,
                                 position_ids=(lens[active] + step).unsqueeze(1), use_cache=True,
                                 **{self._cache_kw: cache})
                logits, step = out.logits[:, -1], step + 1

    def _prefill(self, ids: list[list[int]], room: int = 0):
        """Run the prompts once and return (last-position logits, KV cache, attention mask), one row per
        prompt in order, left-padded to a common width. Prompts sharing at least
        ``SHARED_PREFIX_MIN_TOKENS`` leading tokens (``shared_prefix_groups``) run that prefix once; its
        cache is expanded to the group, whose rest runs as one batch padded between prefix and rest.
        The prompts in no group run as one left-padded batch. The returned cache's layers
        (``growing_kv_layer``) have ``room`` positions free for decoding."""
        import torch
        from transformers import DynamicCache
        from transformers.cache_utils import Cache

        dev, pad = self.device, self.tokenizer.pad_token_id or 0
        groups = shared_prefix_groups(ids, SHARED_PREFIX_MIN_TOKENS)
        alone = [m[0] for m, n in groups if n == 0]
        parts = []  # (rows, per-layer (keys, values), mask, last logits)
        for rows, n in [(m, n) for m, n in groups if n > 0] + ([(alone, 0)] if alone else []):
            cache = self._expanded(self._prefix_cache(ids[rows[0]][:n])[0], len(rows)) if n else DynamicCache()
            rest = [ids[i][n:] for i in rows]
            width = max(map(len, rest))
            x = torch.full((len(rows), width), pad, dtype=torch.long)
            mask = torch.zeros((len(rows), n + width), dtype=torch.long)
            mask[:, :n] = 1
            pos = torch.zeros((len(rows), width), dtype=torch.long)
            for j, r in enumerate(rest):
                x[j, width - len(r):] = torch.tensor(r)
                mask[j, n + width - len(r):] = 1
                pos[j, width - len(r):] = torch.arange(n, n + len(r))
            out = self._step(input_ids=x.to(dev), attention_mask=mask.to(dev), position_ids=pos.to(dev),
                             use_cache=True, **{self._cache_kw: cache}, **self._keep(1))
            parts.append((rows, [(la.keys, la.values) for la in cache.layers], mask.to(dev), out.logits[:, -1]))
        # each part's rows written into one left-padded buffer per layer, in the prompts' order (padding
        # is zeros: masked positions must hold finite values)
        total = max(p[2].shape[1] for p in parts)
        rows_t = [torch.tensor(p[0], device=dev) for p in parts]
        layers = []
        for li in range(len(parts[0][1])):
            kv = []
            for which in (0, 1):
                like = parts[0][1][li][which]
                buf = like.new_zeros(len(ids), like.shape[1], total + room, like.shape[3])
                for rows, p in zip(rows_t, parts):
                    t = p[1][li][which]
                    buf[rows, :, total - t.shape[-2] : total] = t
                kv.append(buf)
            layers.append(growing_kv_layer(*kv, total))
        mask = parts[0][2].new_zeros(len(ids), total)
        logits = parts[0][3].new_empty(len(ids), parts[0][3].shape[-1])
        for rows, p in zip(rows_t, parts):
            mask[rows, total - p[2].shape[1] :] = p[2]
            logits[rows] = p[3]
        return logits, Cache(layers=layers), mask

    def _prefix_cache(self, ids: list[int]):
        """(KV cache, last position's logits) of one token sequence run on its own."""
        import torch
        from transformers import DynamicCache

        cache = DynamicCache()
        with torch.inference_mode():
            out = self.model(input_ids=torch.tensor([ids], device=self.device), use_cache=True,
                             **{self._cache_kw: cache}, **self._keep(1))
        return cache, out.logits[0, -1]

    @staticmethod
    def _expanded(cache, rows: int):
        """A copy of a one-row KV cache repeated to ``rows`` rows."""
        from transformers import DynamicCache

        wide = DynamicCache()
        for li, layer in enumerate(cache.layers):
            wide.update(layer.keys.expand(rows, -1, -1, -1).contiguous(),
                        layer.values.expand(rows, -1, -1, -1).contiguous(), li)
        return wide

    def _chosen_logprobs(self, prompt_ids: list[int], new: list[int]) -> list[float]:
        """Log-probs of ``new`` (tokens following ``prompt_ids``) from one full forward, no cache."""
        import torch

        if not new:
            return []
        seq = torch.tensor([prompt_ids + new[:-1]], device=self.device)
        with torch.inference_mode():
            logits = self.model(input_ids=seq, **self._keep(len(new))).logits[0, -len(new):].float()
            lps = torch.log_softmax(logits, dim=-1)
        return [float(lps[j, t]) for j, t in enumerate(new)]

    # -- option scoring ----------------------------------------------------
    def split_item(self, prompt: str, options: Sequence[str]) -> tuple[list[int], list[list[int]]] | None:
        """(prompt ids, [option ids]): each option's tokens are those of prompt + option after the prompt's
        tokens; None if, for some option, the tokenisation at the boundary differs from the prompt's alone
        (or the option adds no token)."""
        tok = self.tokenizer
        p_ids = tok(prompt, add_special_tokens=False)["input_ids"]
        opts = []
        for o in options:
            full = tok(prompt + o, add_special_tokens=False)["input_ids"]
            if full[: len(p_ids)] != p_ids or len(full) == len(p_ids):
                return None
            opts.append(full[len(p_ids) :])
        return p_ids, opts

    def score(self, items: Sequence[tuple[str, list[str]]]) -> list[OptionScores]:
        results: list[OptionScores | None] = [None] * len(items)
        packable = {}
        for i, (prompt, options) in enumerate(items):
            split = self.split_item(prompt, options)
            if self._packed_ok and split and len(split[0]) + sum(map(len, split[1])) <= PACKED_MAX_TOKENS:
                packable[i] = split
            else:  # the per-item paths (the first item also checks the packed path)
                results[i] = self._score_item(prompt, options, split)
        idx = list(packable)
        min_shared = SHARED_PREFIX_MIN_TOKENS if self._shared_ok is not False else math.inf
        for members, n in shared_prefix_groups([packable[i][0] for i in idx], min_shared):
            group = [idx[m] for m in members]
            if n == 0:
                results[group[0]] = self._score_packed(*packable[group[0]])
            else:
                for i, r in zip(group, self._score_shared([packable[i] for i in group], n)):
                    results[i] = r
        return results  # type: ignore[return-value]

    def _score_shared(self, items: list[tuple[list[int], list[list[int]]]], n: int) -> list[OptionScores]:
        """Items (prompt ids, option ids) whose prompts share their first ``n`` tokens: the prefix runs
        once, each item's packed forward reads its KV cache. On the first group the first item is also
        scored by the packed path alone; if they disagree, or the model's cache cannot be read with a
        custom mask or cropped, groups are no longer formed (with a warning)."""
        if self._shared_ok is not None:
            return self._score_group(items, n)

        def distance(out):
            ref = self._score_packed(*items[0])
            return max(abs(a - b) for a, b in zip(out[0].logprobs, ref.logprobs)), "to the packed path"

        return self._check_once("_shared_ok", "shared-prefix option scoring", "items are scored one by one",
                                lambda: self._score_group(items, n), distance,
                                lambda: [self._score_packed(*it) for it in items])

    def _score_group(self, items: list[tuple[list[int], list[list[int]]]], n: int) -> list[OptionScores]:
        cache = self._prefix_cache(items[0][0][:n])[0]
        return [self._score_packed(p_ids, opts, cache=cache, offset=n) for p_ids, opts in items]

    def _score_item(self, prompt: str, options: list[str], split) -> OptionScores:
        """One item by the per-item paths; ``split``: its ``split_item``."""
        if split is None:
            log.debug("token boundary differs between prompt and option; scoring as full prompts")
            return self.score_full(prompt, options)
        p_ids, opts = split
        if len(p_ids) + sum(len(o) for o in opts) > PACKED_MAX_TOKENS:
            return self._score_cached(p_ids, opts)
        if self._packed_ok is None:  # first item: check the packed path against the cached one
            cached = self._score_cached(p_ids, opts)
            return self._check_once(
                "_packed_ok", "packed option scoring", "the cached-prefix path scores",
                lambda: self._score_packed(p_ids, opts),
                lambda packed: (max(abs(a - b) for a, b in zip(packed.logprobs, cached.logprobs)),
                                "to the cached-prefix path"),
                lambda: cached)
        return self._score_packed(p_ids, opts) if self._packed_ok else self._score_cached(p_ids, opts)

    def _score_packed(self, p_ids: list[int], opts: list[list[int]], cache=None, offset: int = 0) -> OptionScores:
        """One forward over prefix + every option packed in one sequence: each option's tokens see
        the prefix and their own earlier tokens (a block mask), positions restart after the prefix,
        and logits are computed only at the positions that predict an option token. With ``cache``
        (the KV cache of ``p_ids[:offset]``) only the rest of the prompt and the options are fed; the
        cache is cropped back to ``offset`` afterwards, ready for the next item sharing that prefix."""
        import torch

        rest = p_ids[offset:]
        n_p = len(rest)
        length = n_p + sum(len(o) for o in opts)
        allowed = torch.zeros(length, offset + length, dtype=torch.bool)
        allowed[:, :offset] = True
        allowed[:n_p, offset : offset + n_p] = torch.ones(n_p, n_p, dtype=torch.bool).tril()
        ids, pos, starts, start = list(rest), list(range(offset, offset + n_p)), [], n_p
        for o in opts:
            n = len(o)
            allowed[start : start + n, offset : offset + n_p] = True
            allowed[start : start + n, offset + start : offset + start + n] = torch.ones(n, n, dtype=torch.bool).tril()
            ids += o
            pos += range(offset + n_p, offset + n_p + n)
            starts.append(start)
            start += n
        dtype = self.model.dtype
        mask = torch.zeros(1, 1, length, offset + length, dtype=dtype).masked_fill(~allowed, torch.finfo(dtype).min)
        # row 0 predicts every option's first token; then each option's own positions
        rows = [n_p - 1] + [st + j - 1 for st, o in zip(starts, opts) for j in range(1, len(o))]
        dev = self.device
        kv = {self._cache_kw: cache, "use_cache": True} if cache is not None else {"use_cache": False}
        with torch.inference_mode():
            out = self.model(input_ids=torch.tensor([ids], device=dev), attention_mask=mask.to(dev),
                             position_ids=torch.tensor([pos], device=dev), **kv,
                             **({self._keep_kw: torch.tensor(rows, device=dev)} if self._keep_kw else {}))
            if cache is not None:  # a negative count: tokens to remove (all transformers versions)
                cache.crop(offset - cache.get_seq_length())
            logits = out.logits[0]
            if logits.shape[0] != len(rows):  # model ignored logits_to_keep: select the rows here
                logits = logits[torch.tensor(rows, device=dev)]
            lps = torch.log_softmax(logits.float(), dim=-1)
        totals, r = [], 1
        for o in opts:
            total = float(lps[0, o[0]])
            for j in range(1, len(o)):
                total += float(lps[r, o[j]])
                r += 1
            totals.append(total)
        return OptionScores(logprobs=totals, token_counts=[len(o) for o in opts])

    def _score_cached(self, p_ids: list[int], opts: list[list[int]]) -> OptionScores:
        """The prefix runs once; its KV cache is expanded to the options, scored as one padded batch."""
        import torch

        n, lmax = len(opts), max(len(o) for o in opts)
        pad = self.tokenizer.pad_token_id or 0
        pre_cache, last = self._prefix_cache(p_ids)
        with torch.inference_mode():
            first_lp = torch.log_softmax(last.float(), dim=-1)
            cache = self._expanded(pre_cache, n)
            ids = torch.full((n, lmax), pad, dtype=torch.long, device=self.device)
            mask = torch.zeros((n, len(p_ids) + lmax), dtype=torch.long, device=self.device)
            mask[:, : len(p_ids)] = 1
            for i, o in enumerate(opts):
                ids[i, : len(o)] = torch.tensor(o)
                mask[i, len(p_ids) : len(p_ids) + len(o)] = 1
            pos = torch.arange(len(p_ids), len(p_ids) + lmax, device=self.device).unsqueeze(0).expand(n, -1)
            out = self.model(input_ids=ids, attention_mask=mask, position_ids=pos, use_cache=True,
                             **{self._cache_kw: cache})
            lps = torch.log_softmax(out.logits.float(), dim=-1)
        totals = []
        for i, o in enumerate(opts):
            total = float(first_lp[o[0]])
            for j in range(1, len(o)):
                total += float(lps[i, j - 1, o[j]])
            totals.append(total)
        return OptionScores(logprobs=totals, token_counts=[len(o) for o in opts])

    def score_full(self, prompt: str, options: list[str]) -> OptionScores:
        """Reference path: each option as its own full prompt (no shared prefix)."""
        import torch

        tok = self.tokenizer
        p_ids = tok(prompt, add_special_tokens=False)["input_ids"]
        totals, counts = [], []
        for o in options:
            full = tok(prompt + o, add_special_tokens=False)["input_ids"]
            # boundary-safe: the option's tokens are those after the longest common prefix
            k = 0
            while k < min(len(p_ids), len(full)) and p_ids[k] == full[k]:
                k += 1
            k = max(1, min(k, len(full) - 1))
            n_keep = len(full) - k + 1  # logits at positions k-1 .. len(full)-1
            with torch.inference_mode():
                logits = self.model(torch.tensor([full], device=self.device), **self._keep(n_keep)).logits[0].float()
            lp = torch.log_softmax(logits, dim=-1)
            off = len(full) - lp.shape[0]  # absolute position of lp's first row
            totals.append(float(sum(lp[j - 1 - off, full[j]] for j in range(k, len(full)))))
            counts.append(len(full) - k)
        return OptionScores(logprobs=totals, token_counts=counts)
