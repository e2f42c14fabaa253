"""The CulturalPersonas release through the workflow: float32 eager against a faster setting (one run).

    .venv/bin/python bench/release_precision.py [--dtype bfloat16] [--compile] [--subsample full]
        [--primings primed,unprimed] [--countries all] [--cores 2] [--out bench/out/release_precision]

Runs the target ``personas_release_eval`` (``config/personas-release.yaml``: every country of
``personas.release_eval.countries``) twice, one after the other, each with a cold request cache of its
own (a temporary folder) and the jobs forced to run: first the default model in float32, eager
(``compile: false``), then in ``--dtype`` with ``compile: --compile``.  ``--subsample`` (default
``full``: the whole release), ``--primings`` (default both) and ``--countries`` (default all: the config's)
go to ``personas.release_eval``.  Reports
the CPU (model, bfloat16 support), each run's wall time (the Snakemake command) and the ratio float32 /
setting (the goal asks for 3x on the full release, both primings), and copies each run's
``run_totals.tsv`` and ``trait_scores.tsv`` beside the JSON.  The two runs write the same results
folder in turn: the workflow's results hold the second run's tables afterwards.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import common

common.prepare_env()
ROOT = common.ROOT

MODEL = "smollm2-135m-instruct"
RULES = ["personas_release_items", "personas_release_mcs", "personas_release_oeg", "personas_release_summary"]


def overlay(path: Path, cache: Path, dtype: str, compile_: bool, subsample, primings: list[str],
            countries: list[str] | None) -> Path:
    import yaml

    release_eval = {"subsample": subsample, "priming": primings, **({"countries": countries} if countries else {})}
    path.write_text(yaml.safe_dump({
        "cache_dir": str(cache),
        "models": {MODEL: {"dtype": dtype, "compile": compile_}},
        "personas": {"release_eval": release_eval},
    }, sort_keys=True))
    return path


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dtype", choices=["float32", "bfloat16"], default="bfloat16")
    ap.add_argument("--compile", action="store_true")
    ap.add_argument("--subsample", default="full", help="items per country per instrument, or full")
    ap.add_argument("--primings", default="primed,unprimed")
    ap.add_argument("--countries", default="all", help="comma-separated country ids, or all")
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument("--dry-run", action="store_true", help="plan both runs only (snakemake -n)")
    ap.add_argument("--out", default=str(ROOT / "bench" / "out" / "release_precision"))
    args = ap.parse_args()

    from cultalign.models.cpu import cpu_features

    subsample = args.subsample if args.subsample == "full" else int(args.subsample)
    primings = args.primings.split(",")
    countries = None if args.countries == "all" else args.countries.split(",")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    res: dict = {"cpu": cpu_features(), "subsample": subsample, "primings": primings, "countries": args.countries,
                 "cores": args.cores,
                 "load_before": os.getloadavg()[0], "runs": {}}
    print("cpu", json.dumps(res["cpu"]), flush=True)
    settings = {"float32_eager": ("float32", False),
                f"{args.dtype}_{'compiled' if args.compile else 'eager'}": (args.dtype, args.compile)}
    with tempfile.TemporaryDirectory(prefix="release-precision-") as tmp:
        for name, (dtype, comp) in settings.items():
            conf = overlay(Path(tmp) / f"{name}.yaml", Path(tmp) / f"cache-{name}", dtype, comp, subsample, primings,
                           countries)
            cmd = [str(ROOT / ".venv" / "bin" / "snakemake"), "personas_release_eval", "--cores", str(args.cores),
                   "--configfile", "config/personas-release.yaml", str(conf), "--forcerun", *RULES]
            if args.dry_run:
                cmd.append("-n")
            t = time.perf_counter()
            p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=False)
            wall = time.perf_counter() - t
            (out / f"{name}.snakemake.log").write_text(p.stdout + p.stderr)
            res["runs"][name] = {"dtype": dtype, "compile": comp, "wall_s": wall, "returncode": p.returncode}
            print(name, json.dumps(res["runs"][name]), flush=True)
            if p.returncode != 0:
                print(p.stderr[-4000:], file=sys.stderr)
                return 1
            for table in ("run_totals.tsv", "trait_scores.tsv"):
                src = ROOT / "results" / "personas" / "release" / table
                if src.exists() and not args.dry_run:
                    shutil.copy(src, out / f"{name}.{table}")
    names = list(settings)
    res["ratio_float32_eager_over_setting"] = res["runs"][names[0]]["wall_s"] / res["runs"][names[1]]["wall_s"]
    res["load_after"] = os.getloadavg()[0]
    print(json.dumps({k: v for k, v in res.items() if k != "runs"}), flush=True)
    (out / "release_precision.json").write_text(json.dumps(res, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
