"""Multiple-choice option scoring: the model layer against lm-evaluation-harness, same items, one run.

    .venv/bin/python bench/lm_eval_scoring.py [--items 60] [--batch-size 16] [--repeats 1] [--dtype float32]
        [--release ../shared/data/culturalpersonas] [--out bench/out/lm_eval_scoring.json]

Items: the first ``--items`` questions of the published CulturalPersonas release (USA; 10 per trait
with the default 60), each with its five graded answers as options, built as the workflow's MCS step
builds them (``personas.evaluate.mcs_score_items``: seeded option order, text mode, unprimed) and
rendered with the default model's chat template (SmolLM2-135M-Instruct, 2 threads, in ``--dtype``:
float32 or bfloat16, the same dtype for every scorer, lm-eval's included).

Scorers, each on the identical rendered (prompt, option) strings:
1. ``cultalign_onednn``: ``TransformersBackend.score`` with the CPU linear kernel the workflow uses
   (oneDNN), prefix and options packed in one forward pass per item;
2. ``cultalign_torch``: the same with torch's own linear kernel (the kernel lm-evaluation-harness runs);
   ``cultalign_onednn_item_by_item``: the oneDNN scorer without groups of items sharing a prompt prefix
   (``SHARED_PREFIX_MIN_TOKENS`` out of reach), the same lever measured on its own;
3. ``lm_eval_hf``: lm-evaluation-harness's HF model (``HFLM``, batch ``--batch-size``) on the same local
   model folder, in its own venv ``bench/.venv-lmeval`` that this script makes on first use (``lm-eval``
   0.4.13 with this venv's torch, transformers and accelerate pins, from the package index).  Its
   ``_loglikelihood_tokens`` (the batching, padding and forward passes behind ``loglikelihood``) gets the
   token split ours uses (prompt tokens, then the rest of prompt + option), tokenised with its own
   tokenizer inside the timed region: the public ``loglikelihood`` would first move the context's
   trailing whitespace into the continuation (``_encode_pair``), i.e. score the chat template's final
   newline as part of every option, a different quantity (up to 1.5e-3 nats apart in a first run).

Reports wall seconds per scorer, the ratios lm-eval / ours, and the largest log-prob difference to
lm-eval's (the run fails, exit 1, above ``--tolerance``; by default 1e-3 nats in float32 and the
backend's first-check tolerance, ``CHECK_TOLERANCE``, in bfloat16: both round in bfloat16, in other
orders), and the CPU (model, bfloat16 support).  ``bound``: the least time any exact scorer in
the run's dtype could take on these items at this machine's matmul rate in that dtype, measured in the
same run, and so the
largest speed-up over each scorer that any implementation could reach here (``bench/compute_bound.py``).
One run on a shared machine: compare the ratios, not the absolute times.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import common
from common import build_items, default_model_spec, ensure_default_model
from compute_bound import bound, gemm_peak, model_sizes, scoring_work

common.prepare_env()
ROOT = common.ROOT

LMEVAL_VENV = ROOT / "bench" / ".venv-lmeval"
LMEVAL_VERSION = "0.4.13"

# Runs inside the lm-eval venv: reads {"model", "dtype", "batch_size", "threads", "requests": [[ctx, cont], ...]}
# on stdin, prints {"seconds", "logprobs"} on stdout.
LMEVAL_RUNNER = textwrap.dedent("""
    import json, sys, time
    import torch
    spec = json.load(sys.stdin)
    torch.set_num_threads(spec["threads"])
    from lm_eval.models.huggingface import HFLM
    lm = HFLM(pretrained=spec["model"], device="cpu", dtype=spec["dtype"], batch_size=spec["batch_size"])
    t0 = time.perf_counter()
    reqs = []
    for ctx, cont in spec["requests"]:
        c, whole = lm.tok_encode(ctx), lm.tok_encode(ctx + cont)
        reqs.append(((ctx, cont), c, whole[len(c):]))
    res = lm._loglikelihood_tokens(reqs, disable_tqdm=True)
    seconds = time.perf_counter() - t0
    print(json.dumps({"seconds": seconds, "logprobs": [float(r[0]) for r in res]}))
""")


def pins() -> list[str]:
    """torch, transformers, tokenizers and accelerate (lm-eval's HF model needs it) as installed in this
    venv: the lm-eval venv gets the same."""
    from importlib.metadata import version

    return [f"{p}=={version(p)}" for p in ("torch", "transformers", "tokenizers", "accelerate")]


def ensure_lmeval_venv() -> Path:
    py = LMEVAL_VENV / "bin" / "python"
    check = [str(py), "-c", "import lm_eval.models.huggingface"]
    if py.exists() and subprocess.run(check, capture_output=True).returncode == 0:
        return py
    print(f"making {LMEVAL_VENV} (lm-eval {LMEVAL_VERSION}, {', '.join(pins())})", flush=True)
    subprocess.run([sys.executable, "-m", "venv", str(LMEVAL_VENV)], check=True)
    subprocess.run([str(py), "-m", "pip", "install", "-q", f"lm-eval=={LMEVAL_VERSION}", *pins()], check=True)
    return py


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--items", type=int, default=60)
    ap.add_argument("--batch-size", type=int, default=16, help="lm-eval's batch size")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--dtype", choices=["float32", "bfloat16"], default="float32")
    ap.add_argument("--tolerance", type=float, default=None,
                    help="largest allowed |log-prob difference| (default: by dtype, see above)")
    ap.add_argument("--release", default=str(common.RELEASE))
    ap.add_argument("--out", default=str(ROOT / "bench" / "out" / "lm_eval_scoring.json"))
    args = ap.parse_args()


    from cultalign.models import ModelClient
    from cultalign.models.transformers_backend import TransformersBackend

    from cultalign.models.cpu import cpu_features
    from cultalign.models.transformers_backend import CHECK_TOLERANCE

    tolerance = args.tolerance if args.tolerance is not None else CHECK_TOLERANCE[args.dtype]
    print("cpu", json.dumps(cpu_features()), flush=True)
    model_dir = ensure_default_model()
    lmeval_py = ensure_lmeval_venv()
    threads = 2
    specs = {k: default_model_spec(model_dir, batch_size=16, threads=threads, cpu_linear=k, dtype=args.dtype)
             for k in ("onednn", "torch")}
    backends = {k: TransformersBackend(s) for k, s in specs.items()}
    client = ModelClient(specs["onednn"], None, backend=backends["onednn"])
    items = build_items(Path(args.release), args.items, client)
    flat = [(p, o) for p, opts in items for o in opts]
    res: dict = {"cpu": cpu_features(), "dtype": args.dtype, "tolerance": tolerance, "items": len(items),
                 "options": len(flat), "threads": threads, "load_before": os.getloadavg()[0],
                 "pins": pins(), "lm_eval": LMEVAL_VERSION, "runs": []}
    print(f"{len(items)} items, {len(flat)} (prompt, option) pairs", flush=True)

    import cultalign.models.transformers_backend as tb

    ours: dict[str, list[float]] = {}
    grouped = tb.SHARED_PREFIX_MIN_TOKENS
    variants = [("onednn", grouped), ("torch", grouped), ("onednn", 10**9)]
    for rep in range(args.repeats):
        for k, min_shared in variants:
            name = k if min_shared == grouped else f"{k}_item_by_item"
            be = backends[k]
            tb.SHARED_PREFIX_MIN_TOKENS = min_shared
            be.score(items[:1])  # warm-up (first-use packed-path check)
            t0 = time.perf_counter()
            scores = be.score(items)
            dt = time.perf_counter() - t0
            ours[name] = [lp for s in scores for lp in s.logprobs]
            res["runs"].append({"scorer": f"cultalign_{name}", "repeat": rep, "seconds": dt})
            print(f"cultalign_{name}: {dt:.1f} s", flush=True)
        tb.SHARED_PREFIX_MIN_TOKENS = grouped
        env = {**os.environ, "OMP_NUM_THREADS": str(threads)}
        spec = {"model": str(model_dir), "dtype": args.dtype, "batch_size": args.batch_size, "threads": threads,
                "requests": [list(x) for x in flat]}
        p = subprocess.run([str(lmeval_py), "-c", LMEVAL_RUNNER], input=json.dumps(spec), capture_output=True,
                           text=True, env=env, check=False)
        if p.returncode != 0:
            print(p.stderr[-4000:], file=sys.stderr)
            return 1
        lm = json.loads(p.stdout.strip().splitlines()[-1])
        res["runs"].append({"scorer": "lm_eval_hf", "repeat": rep, "seconds": lm["seconds"],
                            "batch_size": args.batch_size})
        print(f"lm_eval_hf (batch {args.batch_size}): {lm['seconds']:.1f} s", flush=True)

    def med(scorer):  # the median over repeats (the mean of the middle two for an even count)
        return statistics.median(r["seconds"] for r in res["runs"] if r["scorer"] == scorer)

    t = {s: med(s) for s in ("cultalign_onednn", "cultalign_torch", "cultalign_onednn_item_by_item", "lm_eval_hf")}
    diffs = {k: max(abs(a - b) for a, b in zip(v, lm["logprobs"])) for k, v in ours.items()}

    be = backends["onednn"]
    splits = [s for s in (be.split_item(p, opts) for p, opts in items) if s]
    peak = gemm_peak(threads, dtype=args.dtype)
    res["bound"] = {"peak": peak, "items_split": len(splits),
                    **bound(model_sizes(backends["torch"].model), scoring_work(splits), peak["peak_gflops"], t)}
    res.update(seconds=t, ratio_lm_eval_over_onednn=t["lm_eval_hf"] / t["cultalign_onednn"],
               ratio_lm_eval_over_torch=t["lm_eval_hf"] / t["cultalign_torch"],
               ratio_item_by_item_over_grouped=t["cultalign_onednn_item_by_item"] / t["cultalign_onednn"],
               max_abs_logprob_diff=diffs, load_after=os.getloadavg()[0])
    print(json.dumps({k: v for k, v in res.items() if k != "runs"}, indent=1))
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(res, indent=2))
    return 0 if max(diffs.values()) <= tolerance else 1


if __name__ == "__main__":
    sys.exit(main())
