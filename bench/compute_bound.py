"""How fast the speed goals' workloads could possibly run on this machine: a lower bound from its matmul rate.

    .venv/bin/python bench/compute_bound.py [--prompts 16] [--tokens 40] [--items 60]
        [--release ../shared/data/culturalpersonas] [--out bench/out/compute_bound.json]

The default model (SmolLM2-135M-Instruct, float32, 2 threads) on the CPU is bound by arithmetic: its
linear layers are most of the work, and a forward pass over ``n`` token positions has to do at least
``2 x (linear parameters) x n`` floating-point operations, plus ``2 x vocab x hidden`` per position whose
logits are needed.  Attention, norms, activations and the embedding lookup are left out, so the count is a
lower bound.  The fewest positions any exact method computes are the distinct prefixes of the sequences
(a token trie: a prompt prefix shared by several sequences counted once), and the fewest logit rows the
distinct contexts at which a next token is predicted.  Dividing by the best rate torch reaches on this
machine for large float32 matmuls (``gemm_peak``, measured in the same run) gives the least time any exact
float32 implementation could take; a goal asking for a speed-up beyond (baseline time / that least time)
cannot be met on this machine with identical results.

In one run:

1. ``peak``: GFLOP/s of large float32 matmuls (torch's default kernel and oneDNN's linear, with the
   weight as stored and reordered once for 16 rows as the backend keeps it), and of the model's skinny
   decode shapes (16 rows);
2. ``generation``: ``--prompts`` open-ended prompts from the published release (USA, as
   ``bench/vllm_vs_transformers.py`` builds them), greedy, ``--tokens`` new tokens, timed through plain
   batched ``transformers`` ``generate`` (a model loaded without this project's kernel choice) and through
   the workflow's backend; the least time for the same prompts and greedy outputs, and the largest possible
   speed-up over plain ``generate`` (the goal asks for 2x); then the same prompts constrained to a JSON
   answer (``ANSWER_SCHEMA``), through ``generate`` with xgrammar's logits processor and through the
   backend's decoding loop with xgrammar's matcher (same model and kernel); ``weight_read``: how fast the
   machine reads the model's linear weights once (``weight_read_seconds``), and from it
   ``generation.one_token_per_step``, a tighter least time for methods that feed one token per row per
   step, as plain ``generate`` and the backend do (every step reads every weight; only drafting tokens
   and verifying several per step, speculative decoding, escapes it);
3. ``scoring``: ``--items`` five-option MCS items (as ``bench/lm_eval_scoring.py`` builds them) timed
   through ``TransformersBackend.score``; the positions it computes, the fewest any exact scorer computes
   (the items' shared scenario prefixes counted once), and the least time.  ``bench/lm_eval_scoring.py``
   reports the largest possible speed-up over lm-evaluation-harness in its own run with these helpers.

Ratios within one run are what to compare; absolute times depend on the (shared) machine.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import common
from common import build_items, default_model_spec, ensure_default_model, oeg_prompts

common.prepare_env()
ROOT = common.ROOT


# the JSON answer of the constrained-generation timing: one free-text field, as in the workflow's answer schemas
ANSWER_SCHEMA = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"],
                 "additionalProperties": False}


def gemm_peak(threads: int = 2, repeats: int = 10, dtype: str = "float32") -> dict:
    """GFLOP/s of matmuls in ``dtype`` (float32 or bfloat16) on ``threads`` threads (best of ``repeats``):
    large square and prefill-shaped ones through torch's default kernel and oneDNN's linear (weights as
    stored, and reordered for 16 rows), and the model's decode shape at 16 rows.  ``peak`` is the best
    large-matmul rate."""
    import torch

    torch.set_num_threads(threads)
    onednn = torch.backends.mkldnn.is_available()

    def best(fn, flops):
        fn()
        return flops / min(_timed(fn) for _ in range(repeats)) / 1e9

    rates = {}
    for m, k, n in ((2048, 2048, 2048), (4096, 576, 1536), (16, 576, 1536)):
        a, w = torch.randn(m, k, dtype=getattr(torch, dtype)), torch.randn(n, k, dtype=getattr(torch, dtype))
        with torch.inference_mode():
            rates[f"torch {m}x{k}x{n}"] = best(lambda: torch.nn.functional.linear(a, w), 2 * m * k * n)
            if onednn:
                op = torch.ops.mkldnn._linear_pointwise
                rates[f"onednn {m}x{k}x{n}"] = best(lambda: op(a, w, None, "none", [], ""), 2 * m * k * n)
                # the weight reordered once for 16 rows, as the workflow's backend keeps it
                wp = torch.ops.mkldnn._reorder_linear_weight(w, 16)
                rates[f"onednn-packed {m}x{k}x{n}"] = best(lambda: op(a, wp, None, "none", [], ""), 2 * m * k * n)
    large = [v for key, v in rates.items() if not key.split()[1].startswith("16x")]
    return {"threads": threads, "dtype": dtype, "gflops": rates, "peak_gflops": max(large)}


def _timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def model_sizes(model) -> dict:
    """Parameters of the linear layers other than the output layer, and the output layer's size."""
    import torch

    head = model.get_output_embeddings()
    body = sum(m.weight.numel() for m in model.modules() if isinstance(m, torch.nn.Linear) and m is not head)
    return {"linear_params": body, "output_params": head.weight.numel()}


def distinct_prefixes(seqs) -> int:
    """How many distinct non-empty prefixes the token sequences have (the nodes of their trie)."""
    seen: set[tuple[int, ...]] = set()
    for s in seqs:
        for j in range(1, len(s) + 1):
            seen.add(tuple(s[:j]))
    return len(seen)


def least_flops(sizes: dict, positions: int, logit_rows: int) -> float:
    """Floating-point operations of the linear layers over ``positions`` token positions and the output
    layer over ``logit_rows`` of them (attention and the rest left out: a lower bound)."""
    return 2.0 * (sizes["linear_params"] * positions + sizes["output_params"] * logit_rows)


def generation_work(prompt_ids, new_ids) -> dict:
    """Positions and logit rows of greedy generation: each row's prompt and every new token but the last
    are fed; one next-token prediction per new token.  ``least_*``: shared prefixes counted once."""
    fed = [p + g[:-1] for p, g in zip(prompt_ids, new_ids)]
    contexts = {tuple(p + g[:j]) for p, g in zip(prompt_ids, new_ids) for j in range(len(g))}
    return {"positions": sum(map(len, fed)), "logit_rows": sum(map(len, new_ids)),
            "least_positions": distinct_prefixes(fed), "least_logit_rows": len(contexts)}


def scoring_work(splits) -> dict:
    """Positions and logit rows of option scoring; ``splits``: per item, (prompt ids, [option ids]).
    ``positions``: what the backend's scorer feeds (every prompt token, once per group of items sharing a
    prefix, then every option token); ``positions_item_by_item``: the same without groups; ``least_*``:
    the fewest any exact scorer needs (all shared prefixes once, an option's last token never fed)."""
    from cultalign.models.transformers_backend import SHARED_PREFIX_MIN_TOKENS, shared_prefix_groups

    fed = [p + o[:-1] for p, opts in splits for o in opts]
    contexts = {tuple(p + o[:j]) for p, opts in splits for o in opts for j in range(len(o))}
    item_by_item = sum(len(p) + sum(map(len, opts)) for p, opts in splits)
    groups = shared_prefix_groups([p for p, _ in splits], SHARED_PREFIX_MIN_TOKENS)
    return {"positions": item_by_item - sum((len(m) - 1) * n for m, n in groups),
            "positions_item_by_item": item_by_item,
            "logit_rows": sum(len(o) for _, opts in splits for o in opts),
            "least_positions": distinct_prefixes(fed), "least_logit_rows": len(contexts)}


def weight_read_seconds(model, repeats: int = 5) -> dict:
    """Seconds to read the weights of every linear layer once (the output layer too, once even when tied
    to the embedding), measured three ways, best of ``repeats`` each: one row through each layer as the
    model holds it (the backend's kernel), one row through ``F.linear`` on each stored weight (torch's
    kernel), and ``sum`` over each weight.  A decode step that feeds one token per row reads every weight
    once, and at a few rows it is bound by that read rather than by arithmetic, so ``floor``, the fastest
    of the three, is the least such a step took here (weights larger than the caches come from memory)."""
    import torch

    linears = [m for m in model.modules() if isinstance(m, torch.nn.Linear)]
    gb = sum(m.weight.numel() * m.weight.element_size() for m in linears) / 1e9
    xs = [torch.randn(1, m.in_features, dtype=m.weight.dtype) for m in linears]

    def through_layers():
        for m, x in zip(linears, xs):
            m(x)

    def through_linear():
        for m, x in zip(linears, xs):
            torch.nn.functional.linear(x, m.weight)

    def summed():
        for m in linears:
            m.weight.sum()

    out = {}
    with torch.inference_mode():
        for name, fn in (("one_row_backend_kernel", through_layers), ("one_row_torch_kernel", through_linear),
                         ("sum", summed)):
            fn()
            out[name] = min(_timed(fn) for _ in range(repeats))
    floor = min(out.values())
    return {"weights_gb": gb, "seconds": out, "floor": floor, "gb_per_s": gb / floor}


def one_token_per_step_bound(sizes: dict, prompt_ids, new_ids, peak_gflops: float, step_floor: float) -> dict:
    """The least time of exact greedy decoding that feeds one token per row per step: the prompts' fewest
    positions (shared prefixes once) at ``peak_gflops``, then one step per new token after the first
    (the prefill predicts it), each taking at least ``step_floor`` (reading the weights,
    ``weight_read_seconds``) and at least its active rows' arithmetic at ``peak_gflops``."""
    prefill = least_flops(sizes, distinct_prefixes(prompt_ids), len({tuple(p) for p in prompt_ids}))
    prefill_s = prefill / peak_gflops / 1e9
    steps = max((len(g) for g in new_ids), default=0) - 1
    decode_s = sum(max(step_floor, least_flops(sizes, rows, rows) / peak_gflops / 1e9)
                   for rows in (sum(len(g) > s + 1 for g in new_ids) for s in range(steps)))
    return {"prefill_seconds": prefill_s, "decode_steps": max(steps, 0), "decode_seconds": decode_s,
            "least_seconds": prefill_s + decode_s}


def bound(sizes: dict, work: dict, peak_gflops: float, seconds: dict) -> dict:
    """The least time for ``work`` at ``peak_gflops`` and, per timed method, the largest possible speed-up
    over it and the GFLOP/s it reached on its own positions."""
    least = least_flops(sizes, work["least_positions"], work["least_logit_rows"])
    own = least_flops(sizes, work["positions"], work["logit_rows"])
    least_s = least / peak_gflops / 1e9
    return {**work, "least_gflop": least / 1e9, "least_seconds": least_s,
            "seconds": seconds, "largest_speedup_over": {k: v / least_s for k, v in seconds.items()},
            "gflops_reached_on_own_positions": {k: own / v / 1e9 for k, v in seconds.items()}}


def amdahl_bound(shares: dict, speedup: float, part: str = "linear") -> float:
    """The most a run can gain when only ``part`` of its time (``shares``: fractions by part, summing to 1)
    runs ``speedup`` times faster and the rest does not change (Amdahl's law)."""
    if speedup <= 0:
        raise ValueError(f"speedup must be positive, got {speedup}")
    total = sum(shares.values())
    if abs(total - 1) > 1e-6:
        raise ValueError(f"shares must sum to 1, got {total}")
    return 1 / (total - shares[part] + shares[part] / speedup)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--prompts", type=int, default=16)
    ap.add_argument("--tokens", type=int, default=40)
    ap.add_argument("--items", type=int, default=60)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--release", default=str(common.RELEASE))
    ap.add_argument("--out", default=str(ROOT / "bench" / "out" / "compute_bound.json"))
    args = ap.parse_args()

    import torch
    from transformers import AutoModelForCausalLM

    from cultalign.models import ModelClient, SamplingParams
    from cultalign.models.transformers_backend import TransformersBackend

    threads = 2
    res: dict = {"load_before": os.getloadavg()[0], "threads": threads}
    res["peak"] = gemm_peak(threads)
    peak = res["peak"]["peak_gflops"]
    print("peak", json.dumps(res["peak"]), flush=True)

    spec = default_model_spec(ensure_default_model(), batch_size=args.prompts, threads=threads, cpu_linear="onednn")
    backend = TransformersBackend(spec)
    plain = AutoModelForCausalLM.from_pretrained(spec.location, dtype=torch.float32).eval()  # no kernel choice
    sizes = res["model"] = model_sizes(plain)
    client = ModelClient(spec, None, backend=backend)
    release = Path(args.release)

    # generation: plain batched generate against the workflow's backend, same prompts, greedy
    prompts = oeg_prompts(release, args.prompts, client)
    tok = backend.tokenizer
    tok.padding_side = "left"
    enc = tok(prompts, return_tensors="pt", padding=True, add_special_tokens=False)
    times: dict[str, list[float]] = {"plain_generate": [], "backend_generate": []}
    params = SamplingParams(temperature=0.0, max_new_tokens=args.tokens, seed=1)
    for _ in range(args.repeats):
        t = time.perf_counter()
        with torch.inference_mode():
            out = plain.generate(**enc, max_new_tokens=args.tokens, do_sample=False, temperature=None, top_p=None,
                                 top_k=None, pad_token_id=tok.pad_token_id)
        times["plain_generate"].append(time.perf_counter() - t)
        t = time.perf_counter()
        gens = backend.generate(prompts, params)
        times["backend_generate"].append(time.perf_counter() - t)
    width = enc["input_ids"].shape[1]
    new_ids = [[t for t in row[width:].tolist() if t != tok.pad_token_id] for row in out]
    plain_texts = [tok.decode(g, skip_special_tokens=True) for g in new_ids]
    prompt_ids = [tok(p, add_special_tokens=False)["input_ids"] for p in prompts]
    gen = bound(sizes, generation_work(prompt_ids, new_ids), peak, {k: min(v) for k, v in times.items()})
    res["weight_read"] = wr = weight_read_seconds(backend.model)
    print("weight_read", json.dumps(wr), flush=True)
    one = gen["one_token_per_step"] = one_token_per_step_bound(sizes, prompt_ids, new_ids, peak, wr["floor"])
    one["largest_speedup_over"] = {k: min(v) / one["least_seconds"] for k, v in times.items()}
    gen.update(prompts=len(prompts), max_new_tokens=args.tokens, all_seconds=times,
               identical_texts=sum(a == g.text for a, g in zip(plain_texts, gens)))
    res["generation"] = gen
    print("generation", json.dumps(gen), flush=True)

    # JSON-constrained generation, same prompts, model and kernel: transformers' generate with xgrammar's
    # logits processor against the backend's decoding loop with xgrammar's matcher
    schema = json.dumps(ANSWER_SCHEMA)
    seeds = [params.seed] * len(prompts)
    jt: dict[str, list[float]] = {"hf_generate_json": [], "backend_generate_json": []}
    for _ in range(args.repeats):
        t = time.perf_counter()
        ref = backend._generate_hf(prompts, params, schema, seeds)
        jt["hf_generate_json"].append(time.perf_counter() - t)
        t = time.perf_counter()
        got = backend.generate(prompts, params, schema=schema)
        jt["backend_generate_json"].append(time.perf_counter() - t)
    best = {k: min(v) for k, v in jt.items()}
    res["generation_json"] = gj = {
        "schema": ANSWER_SCHEMA, "seconds": best, "all_seconds": jt,
        "speedup": best["hf_generate_json"] / best["backend_generate_json"],
        "identical_texts": sum(a.text == b.text for a, b in zip(ref, got)),
        "completion_tokens": sum(g.completion_tokens for g in got)}
    print("generation_json", json.dumps(gj), flush=True)

    # scoring: the workflow's packed scorer on MCS items
    items = build_items(release, args.items, client)
    splits = [s for s in (backend.split_item(p, opts) for p, opts in items) if s]
    backend.score(items[:1])  # warm-up (the packed path's first-item check)
    secs = []
    for _ in range(args.repeats):
        t = time.perf_counter()
        backend.score(items)
        secs.append(time.perf_counter() - t)
    sc = bound(sizes, scoring_work(splits), peak, {"backend_score": min(secs)})
    sc.update(items=len(items), items_split=len(splits), all_seconds=secs)
    res["scoring"] = sc
    print("scoring", json.dumps(sc), flush=True)

    res["load_after"] = os.getloadavg()[0]
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(res, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
