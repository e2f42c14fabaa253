"""The model card (cultalign.model_card): the model's values next to the papers' published values
read from config/claims.yaml (converted to the measure's unit, never recomputed), its figures and page."""

import math
from pathlib import Path

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


def test_published_values_come_from_the_claims_in_the_measures_unit():
    rows = card_rows("mine", _tables(), CLAIMS, INPUTS)
    rate = rows[rows["measure"] == "allow_rate"].set_index("model")
    assert rate.loc["mine", "source"] == SOURCE_MINE and rate.loc["mine", "ci_low"] == 0.21
    # Figure 3's published rates (percent in the claims) next to the model's, as fractions
    assert rate.loc["llama-3.1-8b-instruct", "value"] == pytest.approx(0.395)
    assert rate.loc["gpt-5.4-mini", "value"] == pytest.approx(0.283)
    assert (rate.drop(index="mine")["source"] == SOURCE_PUBLISHED).all()
    assert rate.loc["gpt-5.4-mini", "claim"] == "pact.allow_rate_gpt"
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


def test_figures_and_page(tmp_path):
    rows = card_rows("mine", _tables(), CLAIMS, INPUTS)
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
