"""Every study end to end on demo inputs with the real default model (the small
test config: README command 1 cut to one country, instrument and episode), the
claims scorecard, the report, and a warm rerun that makes no model call."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from cultalign.claims import STATUSES, SYNTHETIC_STATUS
from cultalign.core.provenance import read_sidecar
from workflow import SMALL_CONFIG, logs_with_logging_errors, snakemake

pytestmark = pytest.mark.slow


def _sidecars(work: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((work / "results").rglob("*.provenance.json"))]


def test_every_study_end_to_end(small_run, tmp_path):
    claims = pd.read_csv(small_run / "results" / "claims.csv")
    assert set(claims["paper"]) == {"pact", "personas", "monopolet"}
    assert claims["status"].isin(STATUSES).all()
    assert (claims.loc[claims["status"].str.startswith("not computable"), "reason"].str.len() > 0).all()
    # demo inputs are marked synthetic: no claim is scored on a table computed from them
    for _, c in claims[claims["status"].isin(["reproduced", "differs"])].iterrows():
        assert not read_sidecar(small_run / c["result"].rsplit(":", 1)[0]).get("synthetic"), c["id"]
    assert (claims["status"] == SYNTHETIC_STATUS).any()
    assert not logs_with_logging_errors(small_run), "rule logs with a log call that failed to format"

    sides = _sidecars(small_run)
    model_sides = [s for s in sides if "model" in s]
    assert model_sides, "no model-backed result table has a provenance sidecar"
    for s in sides:
        assert {"rule", "params", "params_hash", "code", "packages", "synthetic", "synthetic_inputs"} <= set(s), (
            s["table"])
    # the demo runs on synthetic inputs only: every table that comes from one says which.  Rules
    # that read no input (appendix D Figure 9: EAA over the paper's parameter grid) are not synthetic.
    no_input = {"monopolet_eaa_grid"}
    study = [s for s in sides if s["rule"].startswith(("pact_", "personas_", "monopolet_"))]
    assert all(s["synthetic"] for s in study if s["rule"] not in no_input), [
        s["table"] for s in study if not s["synthetic"] and s["rule"] not in no_input]
    assert not any(s["synthetic"] for s in study if s["rule"] in no_input)
    for s in model_sides:
        assert s["model"]["revision"] and s["model"]["chat_template_hash"]
    assert sum(s["requests"]["model_requests"] for s in model_sides) > 0

    # the report and the warm rerun change files: they run in a copy of the finished run
    work = tmp_path / "work"
    shutil.copytree(small_run, work, symlinks=True)
    report = snakemake(work, "--cores", "1", "--configfile", SMALL_CONFIG, "--report", "results/report.html",
                       timeout=600)
    assert report.returncode == 0, report.stderr[-3000:]
    html = (work / "results" / "report.html").read_text(errors="replace")
    for caption_word in ("Claims scorecard", "Figure"):
        assert caption_word in html
    assert "SYNTHETIC: pact.human.prolific_export" in html  # the report labels results from synthetic inputs

    # warm rerun: every table a model made is made again (with everything
    # downstream of it) from the warm cache, with zero model calls
    for side in model_sides:
        table = work / side["table"]
        table.unlink()
        Path(str(table) + ".provenance.json").unlink()
    tables = sorted({s["table"] for s in model_sides})
    # named as targets: snakemake remakes a missing intermediate only when asked for it
    again = snakemake(work, "--cores", "2", "--configfile", SMALL_CONFIG, "--", *tables)
    assert again.returncode == 0, again.stderr[-5000:]
    warm = [s for s in _sidecars(work) if "model" in s]
    assert {s["table"] for s in warm} == set(tables)
    assert sum(s["requests"]["model_requests"] for s in warm) == 0, [
        (s["table"], s["requests"]) for s in warm if s["requests"]["model_requests"]]
