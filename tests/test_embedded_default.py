"""The embedded default end to end: every study on demo inputs with the real
default model, the claims scorecard, the report, and a warm rerun that makes
no model call.  This is README command 1 minus the install, in a copy of the
working tree."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from conftest import copy_worktree

pytestmark = pytest.mark.slow
SMK = [sys.executable, "-m", "snakemake"]


def _sidecars(work: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((work / "results").rglob("*.provenance.json"))]


def test_embedded_default_end_to_end(smollm2_dir, tmp_path):
    work = copy_worktree(tmp_path / "work")
    cache = tmp_path / "cache"
    run = SMK + ["--cores", "2", "--config", f"cache_dir={cache}"]
    first = subprocess.run(run, cwd=work, capture_output=True, text=True, timeout=3000)
    assert first.returncode == 0, first.stderr[-5000:]

    claims = pd.read_csv(work / "results" / "claims.csv")
    assert set(claims["paper"]) == {"pact", "personas", "monopolet"}
    assert claims["status"].isin(["reproduced", "differs", "not computable"]).all()
    assert (claims.loc[claims["status"] == "not computable", "reason"].str.len() > 0).all()

    sides = _sidecars(work)
    model_sides = [s for s in sides if "model" in s]
    assert model_sides, "no model-backed result table has a provenance sidecar"
    for s in model_sides:
        assert {"config_hash", "packages"} <= set(s)
        assert s["model"]["revision"] and s["model"]["chat_template_hash"]
    assert sum(s["requests"]["model_requests"] for s in model_sides) > 0

    report = subprocess.run(SMK + ["--cores", "1", "--report", "results/report.html"], cwd=work,
                            capture_output=True, text=True, timeout=600)
    assert report.returncode == 0, report.stderr[-3000:]
    html = (work / "results" / "report.html").read_text(errors="replace")
    for caption_word in ("Claims scorecard", "Figure"):
        assert caption_word in html

    # warm rerun: every table a model made is made again (with everything
    # downstream of it) from the warm cache, with zero model calls
    for side in model_sides:
        table = work / side["table"]
        table.unlink()
        Path(str(table) + ".provenance.json").unlink()
    tables = sorted({s["table"] for s in model_sides})
    # named as targets: snakemake remakes a missing intermediate only when asked for it
    again = subprocess.run(run + ["--"] + tables, cwd=work, capture_output=True, text=True, timeout=3000)
    assert again.returncode == 0, again.stderr[-5000:]
    warm = [s for s in _sidecars(work) if "model" in s]
    assert {s["table"] for s in warm} == set(tables)
    assert sum(s["requests"]["model_requests"] for s in warm) == 0, [
        (s["table"], s["requests"]) for s in warm if s["requests"]["model_requests"]]
