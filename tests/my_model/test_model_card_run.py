"""Your own model through the three studies on the small test config, after the small run: the target
model_card runs only the added model's jobs (real default-model weights under another name) and its
card shows every study, the published values and the SYNTHETIC inputs; the workflow's own results stay
up to date."""

from __future__ import annotations

import shutil

import pandas as pd
import pytest
import yaml

from my_model.test_model_card_plan import OWN_RULES
from workflow import SMALL_CONFIG, planned_jobs, rules_of, snakemake

pytestmark = pytest.mark.slow


def test_added_model_runs_its_jobs_and_gets_its_card(small_run, tmp_path):
    work = tmp_path / "work"
    shutil.copytree(small_run, work, symlinks=True)
    spec = yaml.safe_load((work / "config" / "config.yaml").read_text())["models"]["smollm2-135m-instruct"]
    mine = work / "mine.yaml"
    # the default model's weights folder (made by the small run) under another name: no weights to build
    mine.write_text(yaml.safe_dump({"models": {"mine-a": {**spec, "threads": 1}}, "my_model": {"name": "mine-a"}}))
    args = ["--configfile", SMALL_CONFIG, str(mine)]

    jobs = planned_jobs(work, "model_card", *args)
    assert rules_of(jobs) == OWN_RULES - {"prepare_model_gguf"}
    assert all("mine-a" in j.wildcards for j in jobs if j.rule != "model_card")
    out = snakemake(work, "--cores", "2", "model_card", *args, timeout=900)
    assert out.returncode == 0, out.stderr[-5000:]
    assert planned_jobs(work, "model_card", *args) == []
    assert planned_jobs(work, "--configfile", SMALL_CONFIG) == []  # the workflow's own results are untouched

    card = work / "results" / "model_card" / "mine-a"
    rows = pd.read_csv(card / "card.tsv", sep="\t", keep_default_na=False)
    mine_rows = rows[rows["source"] == "this run"]
    assert set(mine_rows["study"]) == {"pact", "personas", "monopolet"}
    assert (mine_rows["model"] == "mine-a").all()
    assert mine_rows["inputs"].str.startswith("SYNTHETIC").all()  # the demo inputs
    # PACT's per-model values are printed only in the paper's figures: the card reads them from the
    # authors' figure data (real_data.pact_site_data), which the small config does not set, so none
    # stands beside this run's rate (with the figure data: tests/my_model/test_model_card.py)
    published = rows[rows["source"] == "published"]
    assert not (published["measure"] == "allow_rate").any()
    assert set(published["study"]) <= {"personas"} and (published["inputs"] == "the paper").all()
    page = (card / "model_card.html").read_text()
    assert "Model card: mine-a" in page and "Skipped" not in page
    assert page.count("data:image/png;base64,") == 10  # a figure per headline measure
