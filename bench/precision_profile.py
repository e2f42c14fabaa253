"""Where option scoring spends its time in float32 and bfloat16, and what bfloat16 can gain at most.

    .venv/bin/python bench/precision_profile.py [--items 20] [--release ../shared/data/culturalpersonas]
        [--out bench/out/precision_profile.json]

The workflow's backend (oneDNN kernel, the default model, 2 threads) scores the same released MCS items
(``common.build_items``) in each dtype, once timed and once under ``torch.profiler``.  The profile's
operators are put in three groups: the linear layers (``mkldnn::_linear_pointwise``, ``aten::linear``,
``aten::addmm``, ``aten::mm``), attention (``scaled_dot_product``) and the rest (norms, rotary embeddings,
activations, copies).  bfloat16 speeds up the matmuls only, so with the float32 profile's shares and the
machine's bfloat16 / float32 matmul ratio measured in the same run (``compute_bound.gemm_peak``, the
prefill shape through the packed oneDNN kernel) Amdahl's law bounds what bfloat16 can gain:
``bound = 1 / (other_share + linear_share / gemm_ratio)``, even if attention and the rest ran no slower.
Reports the CPU, seconds per dtype, the groups' seconds and shares, the bound and the measured ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import common
from common import build_items, default_model_spec, ensure_default_model
from compute_bound import amdahl_bound, gemm_peak

common.prepare_env()
ROOT = Path(__file__).resolve().parents[1]
LINEAR = ("mkldnn::_linear_pointwise", "aten::linear", "aten::addmm", "aten::mm")
SHAPE = "onednn-packed 4096x576x1536"  # the model's prefill shape, the kernel the backend keeps


def group(name: str) -> str:
    if name in LINEAR:
        return "linear"
    if "scaled_dot_product" in name:
        return "attention"
    return "other"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--items", type=int, default=20)
    ap.add_argument("--release", default=str(common.RELEASE))
    ap.add_argument("--out", default=str(ROOT / "bench" / "out" / "precision_profile.json"))
    args = ap.parse_args()

    import torch

    from cultalign.models import ModelClient
    from cultalign.models.cpu import cpu_features
    from cultalign.models.transformers_backend import TransformersBackend

    threads = 2
    torch.set_num_threads(threads)
    res: dict = {"cpu": cpu_features(), "threads": threads, "items": args.items,
                 "load_before": os.getloadavg()[0], "dtypes": {}}
    gemm = {d: gemm_peak(threads, dtype=d)["gflops"][SHAPE] for d in ("float32", "bfloat16")}
    res["gemm_gflops"] = gemm
    res["gemm_ratio"] = gemm["bfloat16"] / gemm["float32"]
    model_dir = ensure_default_model()
    for dtype in ("float32", "bfloat16"):
        spec = default_model_spec(model_dir, batch_size=16, threads=threads, cpu_linear="onednn", dtype=dtype)
        backend = TransformersBackend(spec)
        items = build_items(Path(args.release), args.items, ModelClient(spec, None, backend=backend))
        backend.score(items[:1])  # warm-up (first-use checks)
        t0 = time.perf_counter()
        backend.score(items)
        seconds = time.perf_counter() - t0
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
            backend.score(items)
        groups = {"linear": 0.0, "attention": 0.0, "other": 0.0}
        for ev in prof.key_averages():
            groups[group(ev.key)] += ev.self_cpu_time_total / 1e6
        total = sum(groups.values())
        res["dtypes"][dtype] = {"seconds": seconds, "profiled_s": groups, "profiled_total_s": total,
                                "shares": {k: v / total for k, v in groups.items()}}
        print(dtype, json.dumps(res["dtypes"][dtype]), flush=True)
    shares = res["dtypes"]["float32"]["shares"]
    res["amdahl_bound_bfloat16"] = amdahl_bound(shares, res["gemm_ratio"])
    res["amdahl_bound_matmuls_free"] = amdahl_bound(shares, float("inf"))
    res["measured_float32_over_bfloat16"] = (res["dtypes"]["float32"]["seconds"]
                                             / res["dtypes"]["bfloat16"]["seconds"])
    res["load_after"] = os.getloadavg()[0]
    print(json.dumps({k: v for k, v in res.items() if k != "dtypes"}), flush=True)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(res, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
