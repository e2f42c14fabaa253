"""The CulturalPersonas release audit: per-row embedding (the old path) against the batched one, in one run.

    .venv/bin/python bench/personas_audit.py [--release ../shared/data/culturalpersonas]
        [--batch-size 128] [--kernels torch,onednn] [--out bench/out/personas_audit.json]

The audit (cultalign.personas.audit.audit_published, config/config.yaml's countries and expected
counts) runs on the published release:

1. ``no_ordering``: every check but the embedding ordering check (the audit's fixed cost);
2. ``per_row``: the ordering check with one encoder call per answer row (its five texts), the path
   the audit took before batching, kept here only for the comparison (sentence-transformers'
   default batch of 32, torch's linear kernel);
3. ``batched_<kernel>``: the workflow's path: the whole release's unique answer texts in one encoder
   call (length-sorted batches of ``--batch-size``), once per CPU linear kernel in ``--kernels``.

Each variant starts from a loaded encoder (load time reported apart) and its findings must equal the
per-row findings row for row (same checks, rows, messages, order); the script exits 1 when they differ.
``--no-per-row`` times only the batched path (findings compared between the kernels).
Reports wall and process CPU seconds per variant, the ratio per-row / batched, and the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import common

common.prepare_env()
ROOT = common.ROOT

from cultalign.config import load_config  # noqa: E402
from cultalign.personas import audit as A  # noqa: E402
from cultalign.retrieval import text_encoder  # noqa: E402


def run(label: str, release: Path, cfg: dict, embed) -> dict:
    p, a = cfg["personas"], cfg["personas"]["audit"]
    ids = list(p["countries"])
    names = {c: p["countries"][c]["name"].replace("the ", "") for c in ids}
    codes = {c: p["countries"][c]["release_code"] for c in ids}
    expect = {"norms": a["expect_norms"], "scenarios": a["expect_scenarios"], "questions": a["expect_questions"],
              "answers": a["expect_questions"], "scenarios_per_norm": a["expect_scenarios"] // a["expect_norms"]}
    load = os.getloadavg()[0]
    t0, c0 = time.perf_counter(), time.process_time()
    f = A.audit_release(release, names, codes, expect, a["near_duplicate_jaccard"], embed)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    n_flag = int((f["check"] == "ordering").sum())
    print(f"{label}: {wall:.1f} s wall, {cpu:.1f} s CPU, {len(f)} findings, {n_flag} ordering "
          f"(load {load:.1f} -> {os.getloadavg()[0]:.1f})", flush=True)
    return {"label": label, "wall_s": round(wall, 2), "cpu_s": round(cpu, 2), "findings": f,
            "n_findings": len(f), "n_ordering": n_flag, "load_before": load, "load_after": os.getloadavg()[0]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--release", default=str(common.RELEASE))
    ap.add_argument("--batch-size", type=int, default=None, help="default: personas.audit.embedding_batch_size")
    ap.add_argument("--kernels", default="torch,onednn")
    ap.add_argument("--no-per-row", action="store_true", help="time only the batched path (no comparison)")
    ap.add_argument("--out", default=str(ROOT / "bench" / "out" / "personas_audit.json"))
    args = ap.parse_args()
    release = Path(args.release)
    if not (release / "datasets" / "cp").is_dir():
        sys.exit(f"{release} is not a CulturalPersonas release folder (no datasets/cp)")
    cfg = load_config(ROOT / "config" / "config.yaml")
    model = cfg["personas"]["corpus"]["embedding_model"]
    bs = args.batch_size or cfg["personas"]["audit"]["embedding_batch_size"]
    import torch

    kernels = args.kernels.split(",")
    t0 = time.perf_counter()
    encoders = {k: text_encoder(model, bs, k) for k in kernels}
    reference = text_encoder(model, 32, "torch")  # sentence-transformers' default batch
    load_s = time.perf_counter() - t0

    calls = []

    def per_row(texts):  # the old path: one encoder call per answer row (its five texts)
        out = []
        for i in range(0, len(texts), 5):
            calls.append(1)
            out.extend(reference(texts[i : i + 5]))
        return out

    for k, enc in encoders.items():  # warm each encoder once (first-call allocations), not timed
        enc(["A warm-up sentence."] * 8)
    results = [run("no_ordering", release, cfg, None)]
    if not args.no_per_row:
        results.append(run("per_row", release, cfg, per_row))
    for k, enc in encoders.items():
        results.append(run(f"batched_{k}", release, cfg, enc))
    batched = [r for r in results if r["label"].startswith("batched_")]
    ref = next((r for r in results if r["label"] == "per_row"), batched[0])  # per-row, else the first batched
    same = {r["label"]: bool(r["findings"].equals(ref["findings"])) for r in batched}
    summary = {
        "release": str(release), "model": model, "batch_size": bs, "torch_threads": torch.get_num_threads(),
        "cpus": os.cpu_count(), "encoder_load_s": round(load_s, 2), "per_row_encoder_calls": len(calls),
        "variants": [{k: v for k, v in r.items() if k != "findings"} for r in results],
        f"findings_identical_to_{ref['label']}": same,
        "ratio_per_row_over_batched": {r["label"]: round(ref["wall_s"] / r["wall_s"], 2) for r in batched
                                       if ref["label"] == "per_row"},
        "ratio_cpu_per_row_over_batched": {r["label"]: round(ref["cpu_s"] / r["cpu_s"], 2) for r in batched
                                           if ref["label"] == "per_row"},
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(summary, indent=1))
    print(json.dumps({k: v for k, v in summary.items() if k != "variants"}, indent=1))
    return 0 if all(same.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
