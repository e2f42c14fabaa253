"""Benchmark of the model layer on the default CPU model (figures, not a timed test).

    .venv/bin/python bench/model_layer.py [--out bench/out/model_layer.json]

Measures, in one run on this machine:
  1. generation throughput, 16 prompts batched vs one at a time;
  2. option scoring of 5-option items, shared prefix run once vs every option as a full prompt;
  3. pipeline overhead (ModelClient: render, hash, cache lookup and write) vs the bare backend call
     (3 alternating repeats, each client run with an empty cache; medians);
  4. a warm-cache rerun of a 500-request step vs the cold run;
  5. `snakemake -n --configfile config/paper.yaml` (with the tests' stand-ins for the two inputs a
     checkout lacks, marked synthetic): wall time and job count;
  6. the CPU linear kernel: oneDNN (default) vs torch's own, both loaded here, measured alternately;
  7. prompt scoring against the bare forward pass over the same tokens (the CPU limit): ``score()``
     on 5-option items (short and long prefixes) vs one plain causal forward per item over the same
     packed token ids (prefix then every option; logits at the last position only), alternately.
Generation figures are medians of 3 alternating repeats (all repeats are kept in the JSON).
Ratios are what to compare; absolute times depend on the (shared, noisy) machine.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import common
from common import default_model_spec

common.prepare_env()
ROOT = common.ROOT

from cultalign.models import ChatRequest, ModelClient, RequestCache, SamplingParams, ScoreItem  # noqa: E402
from cultalign.models.transformers_backend import TransformersBackend  # noqa: E402

CONTEXT = ("In many households it is customary to remove shoes at the entrance, to greet the eldest person "
           "first, and to accept food or drink when offered, since refusing may be read as a rejection of "
           "hospitality. Guests often bring a small gift, which the host may set aside unopened. ")


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def bench_generation(backend, client, n=16, tokens=40, repeats=3):
    """Batched vs one-at-a-time, measured ``repeats`` times alternately; the median ratio is reported."""
    params = SamplingParams(temperature=0.0, max_new_tokens=tokens, seed=1)
    prompts = [client.render(ChatRequest.make(f"Describe greeting custom number {i} in two sentences.").messages)
               for i in range(n)]
    backend.generate(prompts[:2], params)  # warm-up
    runs = []
    for _ in range(repeats):
        t_one, outs1 = timed(lambda: [backend.generate([p], params)[0] for p in prompts])
        t_batch, outs16 = timed(lambda: backend.generate(prompts, params))
        tok1 = sum(g.completion_tokens for g in outs1)
        tok16 = sum(g.completion_tokens for g in outs16)
        runs.append({"one_at_a_time_tok_s": tok1 / t_one, "batched_tok_s": tok16 / t_batch,
                     "speedup": (tok16 / t_batch) / (tok1 / t_one), "tokens": tok16})
    med = sorted(runs, key=lambda r: r["speedup"])[len(runs) // 2]
    return {"prompts": n, "max_new_tokens": tokens, "linear_kernel": getattr(backend, "linear_kernel", None),
            **{k: med[k] for k in ("one_at_a_time_tok_s", "batched_tok_s", "speedup")},
            "speedups_all_repeats": [r["speedup"] for r in runs], "tokens_generated": med["tokens"]}


def bench_kernels(spec, client, n=16, tokens=40, repeats=3):
    """oneDNN vs torch's default linear kernel: both backends in this process, measured alternately."""
    import dataclasses

    params = SamplingParams(temperature=0.0, max_new_tokens=tokens, seed=1)
    prompts = [client.render(ChatRequest.make(f"Describe greeting custom number {i} in two sentences.").messages)
               for i in range(n)]
    backends = {k: TransformersBackend(dataclasses.replace(spec, cpu_linear=k)) for k in ("onednn", "torch")}
    rates = {k: {"one": [], "batched": []} for k in backends}
    texts = {}
    for b in backends.values():
        b.generate(prompts[:2], params)
    for _ in range(repeats):
        for k, b in backends.items():
            t1, o1 = timed(lambda: [b.generate([p], params)[0] for p in prompts])
            tb, ob = timed(lambda: b.generate(prompts, params))
            rates[k]["one"].append(sum(g.completion_tokens for g in o1) / t1)
            rates[k]["batched"].append(sum(g.completion_tokens for g in ob) / tb)
            texts[k] = [g.text for g in ob]
    med = {k: {m: sorted(v)[len(v) // 2] for m, v in r.items()} for k, r in rates.items()}
    return {"kernels": {k: b.linear_kernel for k, b in backends.items()}, "tok_s_median": med,
            "onednn_over_torch_one": med["onednn"]["one"] / med["torch"]["one"],
            "onednn_over_torch_batched": med["onednn"]["batched"] / med["torch"]["batched"],
            "same_greedy_texts": sum(a == b for a, b in zip(texts["onednn"], texts["torch"])), "of": n}


def bench_scoring(backend, client, n_items=12):
    items = []
    for i in range(n_items):
        q = (CONTEXT * 2) + f"Question {i}: a visitor is offered tea. What should the visitor do?"
        opts = [" Accept the cup politely with both hands and thank the host.",
                " Decline firmly and ask for something else to drink instead.",
                " Accept it but leave the cup untouched until the host drinks.",
                " Say nothing and wait for the host to serve everyone else first.",
                " Refuse twice before finally accepting, as modesty suggests."]
        items.append((client.render(ScoreItem.make(q, opts).messages), opts))
    backend.score(items[:1])
    t_fast, fast = timed(lambda: backend.score(items))
    t_full, full = timed(lambda: [backend.score_full(p, o) for p, o in items])
    prefix_tokens = len(backend.tokenizer(items[0][0], add_special_tokens=False)["input_ids"])
    max_diff = max(abs(a - b) for f, r in zip(fast, full) for a, b in zip(f.logprobs, r.logprobs))
    return {"items": n_items, "options": 5, "prefix_tokens": prefix_tokens, "shared_prefix_s": t_fast,
            "full_prompt_s": t_full, "speedup": t_full / t_fast, "max_abs_logprob_diff": max_diff}


def bench_forward_limit(backend, client, repeats=3):
    """``backend.score`` vs the bare forward pass over the same tokens, per item set.

    The bare pass is what no scorer can beat on this CPU: the model run once over each item's tokens
    (prefix + all options, the packed sequence ``score`` builds) with the default causal attention,
    no custom mask, one logit row, no tokenisation.  ``score`` includes everything else: tokenising
    prompt and options, building the block mask, computing the logits that predict option tokens and
    the log-softmax.  Medians of ``repeats`` alternating runs; the goal is a ratio within 1.3."""
    import torch

    sets = {}
    for label, reps in (("short_prefix", 2), ("long_prefix", 8)):
        items = []
        for i in range(12):
            q = (CONTEXT * reps) + f"Question {i}: a visitor is offered tea. What should the visitor do?"
            opts = [" Strongly agree", " Agree", " Neither agree nor disagree", " Disagree", " Strongly disagree"]
            items.append((client.render(ScoreItem.make(q, opts).messages), opts))
        sets[label] = items
    model, dev = backend.model, backend.device
    out = {}
    for label, items in sets.items():
        packed = []
        for prompt, opts in items:
            p_ids, o_ids = backend.split_item(prompt, opts)
            packed.append(torch.tensor([p_ids + [t for o in o_ids for t in o]], device=dev))
        backend.score(items[:1])  # warm-up (and the packed-path check on first use)

        def bare(packed=packed):
            with torch.inference_mode():
                for ids in packed:
                    model(input_ids=ids, use_cache=False, **backend._keep(1))

        bare()
        runs = []
        for _ in range(repeats):
            t_bare, _ = timed(bare)
            t_score, _ = timed(lambda items=items: backend.score(items))
            runs.append({"bare_forward_s": t_bare, "score_s": t_score, "ratio": t_score / t_bare})
        med = sorted(runs, key=lambda r: r["ratio"])[len(runs) // 2]
        out[label] = {"items": len(items), "options": 5, "tokens_per_item": int(packed[0].shape[1]),
                      "packed_path": bool(backend._packed_ok), **med, "repeats": runs}
    return out


def bench_overhead(backend, spec, n=32, repeats=3):
    """The bare backend and the client (each repeat with an empty request cache) alternately; medians."""
    params = SamplingParams(temperature=0.0, max_new_tokens=16, seed=2)
    reqs = [ChatRequest.make(f"Give one short fact about custom {i}.", params) for i in range(n)]
    bs = spec.batch_size
    renderer = ModelClient(spec, None, backend=backend)
    rendered = [renderer.render(r.messages) for r in reqs]
    runs = []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as d:
            client = ModelClient(spec, RequestCache(d, "bench", "overhead"), backend=backend)
            t_bare, _ = timed(lambda: [backend.generate(rendered[i:i + bs], params) for i in range(0, n, bs)])
            t_client, _ = timed(lambda: client.generate(reqs))
        runs.append({"bare_backend_s": t_bare, "client_s": t_client})
    t_bare = statistics.median(r["bare_backend_s"] for r in runs)
    t_client = statistics.median(r["client_s"] for r in runs)
    return {"requests": n, "bare_backend_s": t_bare, "client_s": t_client,
            "overhead_pct": 100 * (t_client - t_bare) / t_bare, "repeats": runs}


def bench_warm_cache(backend, spec, n=500):
    params = SamplingParams(temperature=0.0, max_new_tokens=4, seed=3)
    reqs = [ChatRequest.make(f"Answer yes or no: is custom {i} common?", params) for i in range(n)]
    with tempfile.TemporaryDirectory() as d:
        cold = ModelClient(spec, RequestCache(d, "bench", "cold"), backend=backend)
        t_cold, _ = timed(lambda: cold.generate(reqs))
        warm = ModelClient(spec, RequestCache(d, "bench", "warm"))  # no backend: must not need one
        t_warm, _ = timed(lambda: warm.generate(reqs))
        assert warm.stats["model_requests"] == 0, warm.stats
    return {"requests": n, "cold_s": t_cold, "warm_s": t_warm, "warm_pct_of_cold": 100 * t_warm / t_cold,
            "warm_model_requests": 0}


def bench_paper_dag():
    """Plan the paper DAG. A checkout lacks two of its inputs (CultureAtlas, the PDF corpus), so the
    tests' stand-ins, marked synthetic, are layered on config/paper.yaml as in the tests' dry runs."""
    from workflow import paper_stand_ins

    with tempfile.TemporaryDirectory() as tmp:
        stand_ins = paper_stand_ins(Path(tmp))
        t, out = timed(lambda: subprocess.run(
            [sys.executable, "-m", "snakemake", "-n", "--quiet", "rules", "--configfile", "config/paper.yaml",
             stand_ins], cwd=ROOT, capture_output=True, text=True))
    m = re.search(r"^total\s+(\d+)", out.stdout, re.M)
    return {"wall_s": t, "jobs": int(m.group(1)) if m else None, "returncode": out.returncode,
            "stderr_tail": out.stderr[-500:] if out.returncode else ""}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=str(ROOT / "bench" / "out" / "model_layer.json"))
    ap.add_argument("--warm-n", type=int, default=500)
    ap.add_argument("--cpu-linear", choices=["onednn", "torch"], default="onednn")
    ap.add_argument("--only", default=None, help="comma-separated measurement names (default: all)")
    args = ap.parse_args()

    spec = default_model_spec(batch_size=16, cpu_linear=args.cpu_linear)
    backend = TransformersBackend(spec)
    client = ModelClient(spec, None, backend=backend)
    res = {"machine": {"cpus": os.cpu_count(), "torch_threads": __import__("torch").get_num_threads()}}
    for name, fn in [("generation", lambda: bench_generation(backend, client)),
                     ("option_scoring", lambda: bench_scoring(backend, client)),
                     ("pipeline_overhead", lambda: bench_overhead(backend, spec)),
                     ("warm_cache", lambda: bench_warm_cache(backend, spec, args.warm_n)),
                     ("paper_dag", bench_paper_dag),
                     ("cpu_linear_kernels", lambda: bench_kernels(spec, client)),
                     ("prompt_scoring_vs_forward", lambda: bench_forward_limit(backend, client))]:
        if args.only and name not in args.only.split(","):
            continue
        res[name] = fn()
        print(name, json.dumps(res[name], indent=1), flush=True)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(res, indent=2))


if __name__ == "__main__":
    main()
