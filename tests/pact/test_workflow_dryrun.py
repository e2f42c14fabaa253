"""The PACT rules resolve in a dry run with the embedded and the paper configs."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SNAKEMAKE = Path(sys.executable).with_name("snakemake")
TARGETS = ["pact_construction", "pact_figure3", "pact_figure4", "pact_figure5", "pact_figure6", "pact_figure7",
           "pact_figure15", "pact_figure16", "pact_region_heatmap", "pact_preference_bins", "pact_regression_tables",
           "pact_table6", "pact_figure12", "pact_table13", "pact_table28", "pact_human_agreement"]


@pytest.mark.slow
@pytest.mark.parametrize("paper", [False, True])
def test_pact_dry_run(paper, tmp_path):
    from workflow import paper_stand_ins

    # paper: with the inputs a checkout lacks (CultureAtlas) supplied as marked stand-ins
    extra = ["--configfile", "config/paper.yaml", paper_stand_ins(tmp_path)] if paper else []
    cmd = [str(SNAKEMAKE), *TARGETS, "-n", "--forceall", "--cores", "1", "--quiet", "rules", *extra]
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    text = out.stdout + out.stderr
    for rule in ("pact_construct", "pact_judge", "pact_expand", "pact_behaviour", "pact_gather_behaviour",
                 "pact_survey", "pact_plot_figure12", "pact_alignment", "pact_regressions", "pact_plot_figure3",
                 "pact_plot_figure7", "pact_appendix_figures", "pact_behaviour_analysis", "pact_ingest_prolific"):
        assert rule in text
    if extra:  # paper scale downloads the sources and evaluates every configured model, sharded
        assert "download_file" in text
