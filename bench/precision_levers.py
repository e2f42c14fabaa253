"""Generation in float32 and bfloat16, eager and compiled, against plain batched ``generate`` (one run).

    .venv/bin/python bench/precision_levers.py [--dtypes float32,bfloat16] [--workloads 16,64] [--tokens 40]
        [--compile] [--static] [--repeats 2] [--release ../shared/data/culturalpersonas]
        [--out bench/out/precision_levers.json]

Open-ended prompts from the published release (USA, as ``bench/vllm_vs_transformers.py`` builds them),
the default model (SmolLM2-135M-Instruct, 2 threads), greedy, ``--tokens`` new tokens.  For each dtype and
each workload (``--workloads``: prompts per batch; 16 and 64 as the other generation benchmarks):

1. ``plain``: transformers' ``generate`` over one left-padded batch, the model loaded in that dtype without
   this project's kernel choice (the goal's baseline: at least 2x, identical texts);
2. ``eager``: the workflow's backend (oneDNN kernel, grouped prefill, its decoding loop), batch = workload;
3. ``compiled`` (with ``--compile``): the backend with ``compile: true`` (torch's kernel, prefill and decode
   steps through ``torch.compile``); the first batch compiles: its time (``compile_s``) is reported on its
   own and every timed repeat runs after it.  Whether the backend kept the compiled path (its check
   against eager tokens) is reported as ``compiled_in_use``;
4. ``static`` (with ``--static``): transformers' own ``generate`` with a static KV cache
   (``cache_implementation="static"``: fixed shapes) and the model's forward through ``torch.compile``, the
   lever the backend's growing cache does not allow; first call (compile) reported as ``static_compile_s``,
   texts against plain.

Reports the CPU (model, bfloat16 support), the machine's matmul rate in each dtype (``gemm``:
``compute_bound.gemm_peak``, and ``gemm_ratio_bfloat16_over_float32`` per shape: what bfloat16 can gain
at most where the matmuls bound the time), per dtype and workload the best-of-``--repeats`` seconds, the
ratios plain / eager and plain / compiled, identical texts against plain and (compiled) against eager,
and across dtypes the ratio float32 eager / bfloat16 eager.  Ratios are what to compare; absolute times
depend on the (shared, noisy) machine.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import common
from common import default_model_spec, ensure_default_model, oeg_prompts
from compute_bound import gemm_peak

common.prepare_env()
ROOT = common.ROOT


def best_of(fn, repeats: int):
    times, out = [], None
    for _ in range(repeats):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), times, out


def plain_generate(model, tok, prompts, tokens, **kwargs):
    import torch

    tok.padding_side = "left"
    enc = tok(prompts, return_tensors="pt", padding=True, add_special_tokens=False)
    with torch.inference_mode():
        out = model.generate(**enc, max_new_tokens=tokens, do_sample=False, temperature=None, top_p=None,
                             top_k=None, pad_token_id=tok.pad_token_id, **kwargs)
    width = enc["input_ids"].shape[1]
    return [tok.decode(row[width:], skip_special_tokens=True) for row in out]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dtypes", default="float32,bfloat16")
    ap.add_argument("--workloads", default="16,64")
    ap.add_argument("--tokens", type=int, default=40)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--compile", action="store_true", help="also the compiled backend (slow first compile)")
    ap.add_argument("--static", action="store_true",
                    help="also transformers' generate with a static cache and a compiled forward")
    ap.add_argument("--release", default=str(common.RELEASE))
    ap.add_argument("--out", default=str(ROOT / "bench" / "out" / "precision_levers.json"))
    args = ap.parse_args()

    import torch
    from transformers import AutoModelForCausalLM

    from cultalign.models import ModelClient, SamplingParams
    from cultalign.models.cpu import cpu_features
    from cultalign.models.transformers_backend import TransformersBackend

    threads = 2
    torch.set_num_threads(threads)
    workloads = [int(x) for x in args.workloads.split(",")]
    res: dict = {"cpu": cpu_features(), "threads": threads, "tokens": args.tokens, "repeats": args.repeats,
                 "load_before": os.getloadavg()[0], "runs": {}}
    print("cpu", json.dumps(res["cpu"]), flush=True)
    res["gemm"] = {d: gemm_peak(threads, dtype=d) for d in args.dtypes.split(",")}
    if {"float32", "bfloat16"} <= set(res["gemm"]):
        f, b = res["gemm"]["float32"]["gflops"], res["gemm"]["bfloat16"]["gflops"]
        res["gemm_ratio_bfloat16_over_float32"] = {k: b[k] / f[k] for k in f if k in b}
    print("gemm", json.dumps(res.get("gemm_ratio_bfloat16_over_float32", res["gemm"])), flush=True)
    model_dir = ensure_default_model()
    params = SamplingParams(temperature=0.0, max_new_tokens=args.tokens, seed=1)
    for dtype in args.dtypes.split(","):
        spec = default_model_spec(model_dir, dtype=dtype, batch_size=max(workloads), threads=threads)
        eager = TransformersBackend(spec)
        compiled = TransformersBackend(default_model_spec(model_dir, dtype=dtype, batch_size=max(workloads),
                                                          threads=threads, compile=True)) if args.compile else None
        plain = AutoModelForCausalLM.from_pretrained(spec.location, dtype=getattr(torch, dtype)).eval()
        static = None
        if args.static:
            static = AutoModelForCausalLM.from_pretrained(spec.location, dtype=getattr(torch, dtype)).eval()
            static.forward = torch.compile(static.forward, dynamic=False)
        client = ModelClient(spec, None, backend=eager)
        for n in workloads:
            prompts = oeg_prompts(Path(args.release), n, client)
            eager.generate(prompts[:2], params)  # warm-up (the decoding loop's first-batch check)
            run: dict = {"prompts": n}
            run["plain_s"], run["plain_all"], ref = best_of(
                lambda p=prompts: plain_generate(plain, eager.tokenizer, p, args.tokens), args.repeats)
            run["eager_s"], run["eager_all"], got = best_of(lambda p=prompts: eager.generate(p, params), args.repeats)
            run["eager_identical_to_plain"] = sum(a == g.text for a, g in zip(ref, got))
            run["ratio_plain_over_eager"] = run["plain_s"] / run["eager_s"]
            if compiled is not None:
                t = time.perf_counter()
                compiled.generate(prompts, params)  # compiles (first use) and checks against eager tokens
                run["compile_s"] = time.perf_counter() - t
                run["compiled_in_use"] = bool(compiled._compiled_ok)
                run["compiled_s"], run["compiled_all"], cg = best_of(
                    lambda p=prompts: compiled.generate(p, params), args.repeats)
                run["compiled_identical_to_eager"] = sum(a.text == b.text for a, b in zip(cg, got))
                run["ratio_plain_over_compiled"] = run["plain_s"] / run["compiled_s"]
                run["ratio_eager_over_compiled"] = run["eager_s"] / run["compiled_s"]
            if static is not None:
                def static_run(p=prompts):
                    return plain_generate(static, eager.tokenizer, p, args.tokens, cache_implementation="static")
                t = time.perf_counter()
                try:
                    static_run()  # compiles for this batch shape
                except Exception as exc:  # noqa: BLE001 - report the failure, keep the other figures
                    run["static_error"] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:300]}"
                run["static_compile_s"] = time.perf_counter() - t
                if "static_error" not in run:
                    run["static_s"], run["static_all"], st = best_of(static_run, args.repeats)
                    run["static_identical_to_plain"] = sum(a == b for a, b in zip(st, ref))
                    run["ratio_plain_over_static"] = run["plain_s"] / run["static_s"]
                    run["ratio_eager_over_static"] = run["eager_s"] / run["static_s"]
            run["generated_tokens"] = sum(g.completion_tokens for g in got)
            res["runs"][f"{dtype}|{n}"] = run
            print(dtype, json.dumps(run), flush=True)
    for n in workloads:
        a, b = res["runs"].get(f"float32|{n}"), res["runs"].get(f"bfloat16|{n}")
        if a and b:
            res[f"ratio_float32_over_bfloat16_eager|{n}"] = a["eager_s"] / b["eager_s"]
            res[f"ratio_float32_eager_over_best|{n}"] = a["eager_s"] / min(
                r[k] for r in (a, b) for k in ("eager_s", "compiled_s") if k in r)
    res["load_after"] = os.getloadavg()[0]
    print(json.dumps({k: v for k, v in res.items() if k != "runs"}), flush=True)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(res, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
