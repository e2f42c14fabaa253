"""The model card (cultalign.model_card): the model's values next to the papers' published values
read from config/claims.yaml (converted to the measure's unit, never recomputed), its figures and page."""

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cultalign.model_card import (MEASURES, POOLED, SOURCE_MINE, SOURCE_PUBLISHED, bootstrap_mean_ci, card_html,
                                  card_rows, figure_names, monopolet_tables, plot_measure)

ROOT = Path(__file__).resolve().parents[2]
CLAIMS = ROOT / "config" / "claims.yaml"


def _tables():
    """The model's own result tables in the columns the card's builders give them."""
    pact = {"results/pact/analysis/rates_by_model.tsv": pd.DataFrame(
                [{"model": "mine", "n": 100, "n_valid": 98, "n_unknown": 2, "allow_rate": 0.3, "ci_low": 0.21,
                  "ci_high": 0.39}]),
            "results/pact/alignment/summary.tsv": pd.DataFrame(
                [{"model": "mine", "frame": "avg", "persona_setting": "no_persona", "majority_alignment": 0.7,
                  "rate_mae_item": 0.2, "rate_gap_aggregate": 0.1, "signed_culture_gap": -0.05,
                  "uncertainty_corr": float("nan")},
                 {"model": "mine", "frame": "Norm", "persona_setting": "no_persona", "majority_alignment": 0.9,
                  "rate_mae_item": 0.1, "rate_gap_aggregate": 0.1, "signed_culture_gap": 0.0,
                  "uncertainty_corr": float("nan")}])}
    personas = {"results/personas/tables/distances.tsv": pd.DataFrame(
                    [{"model": "mine", "setting": "mcs", "instrument": "cp", "country": "brazil", "W": 0.4,
                      "KS": 0.3}]),
                "results/personas/tables/table2_gains.tsv": pd.DataFrame(
                    [{"setting": "mcs", "country": "brazil", "code": "BR", "baseline": "bfi44", "gain_pct": 12.0}])}
    return {"pact": pact, "personas": personas}


INPUTS = {"pact": "SYNTHETIC: pact.human.prolific_export", "personas": "real"}
SITE_JSON = ROOT.parent / "shared" / "data" / "pact" / "pact_site_summary_data.json"
SITE_TABLE = "results/pact/real_data/site_data.tsv"


@pytest.fixture(scope="module")
def figure_data():
    """The PACT authors' released figure data as the rule real_data_pact_site tables it."""
    if not SITE_JSON.is_file():
        pytest.skip(f"the PACT authors' figure data are not at {SITE_JSON}")
    from cultalign.pact.real_data import pact_site_data

    return {SITE_TABLE: pact_site_data(SITE_JSON)}


def test_published_values_come_from_the_claims_in_the_measures_unit(figure_data):
    rows = card_rows("mine", _tables(), CLAIMS, INPUTS, figure_data)
    rate = rows[rows["measure"] == "allow_rate"].set_index("model")
    assert rate.loc["mine", "source"] == SOURCE_MINE and rate.loc["mine", "ci_low"] == 0.21
    # Figure 3's published rates (percent in the claims) next to the model's, as fractions
    assert rate.loc["llama-3.1-8b-instruct", "value"] == pytest.approx(0.395)
    assert rate.loc["gpt-5.4-mini", "value"] == pytest.approx(0.283)
    assert (rate.drop(index="mine")["source"] == SOURCE_PUBLISHED).all()
    assert rate.loc["gpt-5.4-mini", "claim"] == "pact.allow_rate_gpt"
    assert rate.loc["gpt-5.4-mini", "inputs"] == "the authors' figure data"
    # without the figure data, the values the paper shows only in its figures are left out
    bare = card_rows("mine", _tables(), CLAIMS, INPUTS)
    assert not ((bare["measure"] == "allow_rate") & (bare["source"] == SOURCE_PUBLISHED)).any()
    # alignment: only the no-persona average frame, and every paper model that has a claim there
    major = rows[rows["measure"] == "majority_alignment"]
    assert (major["key"] == "frame avg, persona_setting no_persona").all()
    assert major.loc[major["source"] == SOURCE_MINE, "value"].tolist() == [0.7]
    published = major[major["source"] == SOURCE_PUBLISHED].set_index("model")["value"]
    assert published["gpt-5.4-mini"] == pytest.approx(0.844)
    assert len(published) >= 5
    # Table 2's gain is the paper's models pooled; W has no per-model published value
    gain = rows[(rows["measure"] == "gain_pct") & (rows["source"] == SOURCE_PUBLISHED)]
    assert gain["model"].tolist() == [POOLED] and gain["value"].tolist() == [pytest.approx(19.1)]
    assert (rows[rows["measure"] == "W"]["source"] == SOURCE_MINE).all()
    assert set(rows.loc[rows["source"] == SOURCE_MINE, "inputs"]) == set(INPUTS.values())


def test_a_claim_on_another_row_is_not_matched():
    t = _tables()
    t["personas"]["results/personas/tables/table2_gains.tsv"]["code"] = "XX"
    rows = card_rows("mine", t, CLAIMS, INPUTS)
    assert not ((rows["measure"] == "gain_pct") & (rows["source"] == SOURCE_PUBLISHED)).any()


def test_figures_and_page(tmp_path, figure_data):
    rows = card_rows("mine", _tables(), CLAIMS, INPUTS, figure_data)
    by_name = {m.name: m for m in MEASURES}
    figs = {}
    for name in figure_names(["pact", "personas"]):
        figs[name] = plot_measure(rows, by_name[name], "mine", tmp_path / f"{name}.png", names={"mine": "Mine"},
                                  synthetic=["pact.human.prolific_export"] if by_name[name].study == "pact" else [])
        assert figs[name].stat().st_size > 1000
    skips = {"monopolet": "no episodes: monopolet.manifest is null"}
    page = card_html("mine", {"backend": "vllm", "hub_id": "org/mine"}, rows, skips, ["pact", "personas"], figs,
                     INPUTS)
    assert "Skipped: no episodes: monopolet.manifest is null" in page
    assert '<span class="synthetic">SYNTHETIC: pact.human.prolific_export</span>' in page
    assert page.count("data:image/png;base64,") == len(figs)
    assert "0.21 to 0.39" in page  # the model's CI
    assert "published" in page and "pact.allow_rate_gpt" in page
    assert "No published value of this measure" in page  # W, KS, SAA-like measures without claims
    assert "<td>path</td>" not in page  # a download's target is not the user's
    undefined = rows.copy()
    undefined.loc[undefined["source"] == "this run", "value"] = float("nan")
    blank = card_html("mine", {}, undefined, skips, ["pact", "personas"], figs, INPUTS)
    assert "<td>this run</td><td>not defined</td>" in blank  # never an empty cell
    local = card_html("mine", {"backend": "transformers", "source": "local", "path": "resources/models/mine"}, rows,
                      skips, ["pact", "personas"], figs, INPUTS)
    assert "<tr><td>path</td><td>resources/models/mine</td></tr>" in local  # the weights that ran


def test_monopolet_agreement_with_bootstrap_interval(tmp_path):
    matching = pd.DataFrame({"dilemma_id": ["d1", "d1", "d2"], "cand_idx": [0, 1, 0], "ref_idx": [0, 1, 0],
                             "stance_cand": ["for", "for", "for"], "stance_ref": ["for", "against", "for"],
                             "match": [1, 1, 1], "judged": [True, True, True], "decision": ["judge"] * 3,
                             "valid": [True] * 3})
    sols = pd.DataFrame({"dilemma_id": ["d1", "d2"], "valid": [True, True], "n_solutions": [2, 1]})
    paths = {}
    for name, df in (("matching", matching), ("mine", sols), ("panel", sols)):
        paths[name] = tmp_path / f"{name}.tsv"
        df.to_csv(paths[name], sep="\t", index=False)
    t = monopolet_tables(str(paths["matching"]), str(paths["mine"]), str(paths["panel"]), "mine", 200, 1)
    s = t["results/monopolet/tables/agreement.tsv"].iloc[0]
    assert s["comparison"] == "mine_vs_panel"
    # d1: one agreeing and one conflicting matched pair of 2 + 2 solutions; d2: one agreeing of 1 + 1
    assert s["EAA"] == pytest.approx((0.5 + 1.0) / 2)
    assert s["SAA"] == pytest.approx((1 / 4 + 1 / 2) / 2)
    assert s["EAA_ci_low"] <= s["EAA"] <= s["EAA_ci_high"]
    assert s["EAA_ci_low"] == pytest.approx(0.5) and s["EAA_ci_high"] == pytest.approx(1.0)


def test_bootstrap_interval_of_nothing_is_nan():
    assert all(math.isnan(x) for x in bootstrap_mean_ci([float("nan")], 10, 1))
    lo, hi = bootstrap_mean_ci([1.0, 1.0, 1.0], 50, 3)
    assert lo == hi == 1.0


def _pact_inputs(tmp_path):
    """Behaviour shards, survey answers and human responses of one model ("mine"), in the studies' columns."""
    from cultalign.pact import behaviour
    from cultalign.pact.labels import ALLOW, FOLLOW, UNKNOWN
    from pact.test_alignment_item_unit import humans, model_answers
    from pact.test_sharding import _instances

    shards = []
    for k in range(2):
        part = behaviour.shard_conditions(_instances(), ["C1"], ["full_demo"], ["balance"], f"{k:03d}", 2)
        # every third decision allows the preference, every third is unparseable
        part = part.assign(valid=True, decision=[(FOLLOW, ALLOW, UNKNOWN)[i % 3] for i in range(len(part))],
                           attempts=1, raw_output="Answer: A")
        shards.append(tmp_path / "mine" / f"shard_{k:03d}.tsv")
        shards[-1].parent.mkdir(exist_ok=True)
        part.to_csv(shards[-1], sep="\t", index=False)
    h = humans()
    survey, responses = tmp_path / "survey.tsv", tmp_path / "responses.tsv"
    model_answers(h).assign(model="mine").to_csv(survey, sep="\t", index=False)
    h.to_csv(responses, sep="\t", index=False)
    return [str(p) for p in shards], str(survey), str(responses)


def test_pact_tables_of_one_model_from_its_shards_and_survey(tmp_path):
    """The card's PACT numbers come from the model's own shards and survey through the study's functions."""
    from cultalign.model_card import pact_tables

    shards, survey, responses = _pact_inputs(tmp_path)
    t = pact_tables(shards, survey, responses, "mine", "instruct", "compact_json",
                    "scenario_receiver", 200, 1)
    rate = t["results/pact/analysis/rates_by_model.tsv"].iloc[0]
    assert rate["model"] == "mine" and rate["n"] == 6 and rate["n_valid"] == 4
    assert rate["allow_rate"] == pytest.approx(0.5) and rate["ci_low"] <= 0.5 <= rate["ci_high"]
    summary = t["results/pact/alignment/summary.tsv"].set_index(["frame", "persona_setting"])
    # the model follows culture exactly for the receiver most humans who saw it followed culture for
    assert summary.loc[("avg", "no_persona"), "majority_alignment"] == pytest.approx(1.0)


def test_personas_tables_of_one_model(tmp_path):
    from cultalign.model_card import personas_tables
    from cultalign.personas.common import TRAITS

    rng = np.random.default_rng(0)
    human = tmp_path / "human.tsv"
    pd.DataFrame({"country": "japan", **{t: rng.normal(3, 1, 50) for t in TRAITS}}).to_csv(human, sep="\t",
                                                                                            index=False)
    mcs = []
    for inst, shift in (("cp", 0.2), ("bfi44", 1.0)):
        for priming in ("primed", "unprimed"):
            p = tmp_path / f"results/personas/mcs/mine/{inst}/japan_{priming}.samples.tsv"
            p.parent.mkdir(parents=True, exist_ok=True)
            pd.DataFrame({t: rng.normal(3 + shift, 1, 40) for t in TRAITS}).to_csv(p, sep="\t", index=False)
            mcs.append(str(p))
    t = personas_tables(mcs, [], str(human))
    w = t["results/personas/tables/distances.tsv"].set_index("instrument")
    assert set(w["country"]) == {"japan"} and w.loc["cp", "W"] < w.loc["bfi44", "W"]
    gain = t["results/personas/tables/table2_gains.tsv"].iloc[0]
    assert (gain["code"], gain["baseline"]) == ("JP", "bfi44") and gain["gain_pct"] > 0


def _named(cls, items):
    """A Snakemake input/output list with names (``items``: (name, path or list of paths))."""
    out = cls([])
    for name, value in items:
        start = len(out)
        out.extend(str(v) for v in (value if isinstance(value, list) else [value]))
        out._set_name(name, start, len(out) if isinstance(value, list) else None)
    return out


def test_rule_script_writes_the_card(tmp_path, restore_streams):
    """scripts/report/model_card.py on the model's PACT tables, the other two studies skipped."""
    import runpy

    from snakemake.iocontainers import InputFiles, OutputFiles

    from conftest import FakeSnakemake

    shards, survey, responses = _pact_inputs(tmp_path)
    figures = figure_names(["pact"])
    out = tmp_path / "card"
    skips = {"personas": "not in my_model.studies", "monopolet": "no episodes: monopolet.manifest is null"}
    fake = FakeSnakemake(tmp_path, [], params={
        "code": "c0de", "synthetic_inputs": [], "model": "mine", "spec": {"backend": "vllm", "kind": "instruct"},
        "skips": skips, "studies": ["pact"], "figures": figures, "model_names": {"mine": "Mine"},
        "prompt_formats": ["compact_json"], "item_unit": "scenario_receiver", "bootstrap": 100, "seed": 5})
    fake.input = _named(InputFiles, [("claims", str(CLAIMS)), ("pact_shards", shards), ("pact_survey", survey),
                                     ("pact_responses", responses)])
    fake.output = _named(OutputFiles, [*((f, str(out / f"{f}.png")) for f in figures),
                                       ("table", str(out / "card.tsv")), ("table_page", str(out / "card.html")),
                                       ("card", str(out / "model_card.html")),
                                       ("report_page", str(out / "model_card_report.html"))])
    runpy.run_path(str(ROOT / "scripts" / "report" / "model_card.py"), init_globals={"snakemake": fake})
    rows = pd.read_csv(out / "card.tsv", sep="\t")
    assert set(rows["study"]) == {"pact"}
    assert rows.loc[(rows["measure"] == "allow_rate") & (rows["model"] == "mine"), "value"].tolist() == [0.5]
    page = (out / "model_card.html").read_text()
    assert "Skipped: not in my_model.studies" in page and "Skipped: no episodes" in page
    assert page.count("data:image/png;base64,") == len(figures) == 5
    # the report's page: the same card with each figure named (a data URI under a browser's 2 MiB)
    report = (out / "model_card_report.html").read_text()
    assert "data:image" not in report and report.count('<p class="figure">Figure: the entry') == len(figures)
    assert report.replace("\n", "").count("<tr") == page.replace("\n", "").count("<tr")
    assert all((out / f"{f}.png").stat().st_size > 1000 for f in figures)
