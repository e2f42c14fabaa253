"""Levers for greedy generation on the CPU, measured on release prompts (figures, not a timed test).

    .venv/bin/python bench/generation_levers.py [--prompts 64] [--tokens 64] [--batch-sizes 16,32,64]
        [--release ../shared/data/culturalpersonas] [--out bench/out/generation_levers.json]

Open-ended prompts built from the published CulturalPersonas release (USA, as
``bench/vllm_vs_transformers.py`` builds them), the default model (SmolLM2-135M-Instruct, float32,
2 threads, oneDNN), greedy decoding of ``--tokens`` tokens.  In one run:

1. ``batch_size``: the same prompts through ``ModelClient`` (length-ordered batches) at each batch
   size, alternately with the first size repeated last; generated tokens/s, the ratio to the first
   size, and how many greedy texts are identical to the first size's;
2. ``forward_cost``: one decode forward of 16 rows over their prompts' KV cache with 1, 3, 5 and 7 new
   tokens per row (what verifying k draft tokens costs), and one decode step at 16, 32 and 64 rows;
3. ``prompt_lookup``: how many tokens prompt-lookup drafting (the continuation of the last n-gram's
   most recent earlier match in prompt + output) would have had accepted by the model's own greedy
   output, per draft length and n-gram size: the decode steps that speculative decoding verified by
   the model itself could save on these prompts.

Ratios are what to compare; absolute times depend on the (shared, noisy) machine.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from dataclasses import replace
from pathlib import Path

import common
from common import default_model_spec, oeg_texts

common.prepare_env()
ROOT = common.ROOT


def bench_batch_size(backend, texts, tokens, sizes):
    from cultalign.models import ChatRequest, ModelClient, SamplingParams

    params = SamplingParams(temperature=0.0, max_new_tokens=tokens, seed=1)
    reqs = [ChatRequest.make(t, params) for t in texts]
    runs, ref = [], None
    for bs in [*sizes, sizes[0]]:
        client = ModelClient(replace(backend.spec, batch_size=bs), None, backend=backend)
        t = time.perf_counter()
        gens = client.generate(reqs)
        dt = time.perf_counter() - t
        texts = [g.text for g in gens]
        ref = ref or texts
        n_tok = sum(g.completion_tokens for g in gens)
        runs.append({"batch_size": bs, "seconds": dt, "generated_tokens": n_tok, "tokens_per_s": n_tok / dt,
                     "identical_to_first": sum(a == b for a, b in zip(ref, texts))})
        print("batch_size", json.dumps(runs[-1]), flush=True)
    base = (runs[0]["tokens_per_s"] + runs[-1]["tokens_per_s"]) / 2
    for r in runs:
        r["ratio_to_first_size"] = r["tokens_per_s"] / base
    return {"prompts": len(texts), "max_new_tokens": tokens, "runs": runs}


def bench_forward_cost(backend, prompts):
    import torch

    tok, model = backend.tokenizer, backend.model
    tok.padding_side = "left"
    out = {"tokens_per_row": {}, "rows": {}}

    def step(enc, rows, q):
        with torch.inference_mode():
            cache = model(**enc, use_cache=True).past_key_values
            ids = torch.randint(100, 1000, (rows, q))
            mask = torch.cat([enc["attention_mask"], torch.ones(rows, q, dtype=torch.long)], 1)
            t = time.perf_counter()
            model(input_ids=ids, attention_mask=mask, past_key_values=cache, use_cache=True)
            return time.perf_counter() - t

    enc16 = tok(list(prompts[:16]), return_tensors="pt", padding=True, add_special_tokens=False)
    for q in (1, 3, 5, 7):
        out["tokens_per_row"][q] = min(step(enc16, 16, q) for _ in range(3)) * 1000
    for rows in (16, 32, 64):
        enc = tok(list(prompts[:rows]), return_tensors="pt", padding=True, add_special_tokens=False)
        out["rows"][rows] = min(step(enc, len(enc["input_ids"]), 1) for _ in range(3)) * 1000
    print("forward_cost (ms)", json.dumps(out), flush=True)
    return out


def bench_prompt_lookup(backend, prompts, tokens, drafts=(2, 4, 6), ngrams=(1, 2, 3)):
    from cultalign.models import SamplingParams

    tok = backend.tokenizer
    gens = backend.generate(list(prompts[:16]), SamplingParams(temperature=0.0, max_new_tokens=tokens, seed=1))
    rows = [(tok(p, add_special_tokens=False)["input_ids"], tok(g.text, add_special_tokens=False)["input_ids"])
            for p, g in zip(prompts, gens)]
    n_out = sum(len(o) for _, o in rows)
    res = []
    for k in drafts:
        for n in ngrams:
            accepted, steps = 0, []
            for prompt, output in rows:
                t = s = 0
                while t < len(output):
                    hist = prompt + output[:t]
                    draft = next((hist[j + n : j + n + k] for j in range(len(hist) - n - 1, -1, -1)
                                  if hist[j : j + n] == hist[-n:]), [])
                    a = 0
                    while a < len(draft) and t + a < len(output) and draft[a] == output[t + a]:
                        a += 1
                    accepted, t, s = accepted + a, t + a + 1, s + 1
                steps.append(s)
            res.append({"draft_tokens": k, "ngram": n, "accepted": accepted, "of_tokens": n_out,
                        "decode_steps_longest_row": max(steps), "decode_steps_plain": max(len(o) for _, o in rows)})
    print("prompt_lookup", json.dumps(res), flush=True)
    return res


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--prompts", type=int, default=64)
    ap.add_argument("--tokens", type=int, default=64)
    ap.add_argument("--batch-sizes", default="16,32,64")
    ap.add_argument("--release", default=str(common.RELEASE))
    ap.add_argument("--out", default=str(ROOT / "bench" / "out" / "generation_levers.json"))
    args = ap.parse_args()

    from cultalign.models import ChatRequest, ModelClient
    from cultalign.models.transformers_backend import TransformersBackend

    spec = default_model_spec(cpu_linear="onednn", max_context=8192, max_batch_tokens=32768)
    backend = TransformersBackend(spec)
    texts = oeg_texts(Path(args.release), args.prompts)
    client = ModelClient(spec, None, backend=backend)
    prompts = [client.render(ChatRequest.make(t).messages) for t in texts]
    res = {"load_before": os.getloadavg()[0], "linear_kernel": backend.linear_kernel}
    res["batch_size"] = bench_batch_size(backend, texts, args.tokens,
                                         [int(x) for x in args.batch_sizes.split(",")])
    res["forward_cost_ms"] = bench_forward_cost(backend, prompts)
    res["prompt_lookup"] = bench_prompt_lookup(backend, prompts, args.tokens)
    res["load_after"] = os.getloadavg()[0]
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(res, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
