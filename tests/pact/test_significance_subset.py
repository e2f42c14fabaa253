"""Appendix B.9 statistics over the paper's subset (CultureAtlas, instruction-tuned models, balance
prompt) and age / gender contrasts only over prompts that show age / gender."""

import itertools

import pandas as pd
import pytest

from cultalign.pact import analysis
from cultalign.pact.labels import ALLOW, FOLLOW

SIG = {"sources": ["cultureatlas"], "model_kinds": ["instruct"], "system_prompts": ["balance"],
       "age_ablations": ["full_demo", "age_only"], "gender_ablations": ["full_demo", "gender_only"]}


def decisions() -> pd.DataFrame:
    """Inside the subset younger actors are allowed more (3/4 vs 1/4) where age is shown; outside it
    (NormAd, base model, no-balance prompt, prompts without age) the contrast is reversed."""
    rows = []
    grid = itertools.product(["cultureatlas", "normad"], ["instruct", "base"], ["balance", "no_balance"],
                             ["full_demo", "age_only", "gender_only", "no_demo"], ["younger", "older"], range(4))
    for source, kind, prompt, abl, age, k in grid:
        inside = source == "cultureatlas" and kind == "instruct" and prompt == "balance"
        shows_age = abl in ("full_demo", "age_only")
        younger_more = inside and shows_age
        allow = (k < 3) if (age == "younger") == younger_more else (k < 1)
        rows.append({"model": f"m-{kind}", "model_kind": kind, "source": source, "system_prompt": prompt,
                     "demo_ablation": abl, "actor_age": age, "receiver_age": "older", "age_pair": f"{age}->older",
                     "actor_gender": "female" if k % 2 else "male", "receiver_gender": "male",
                     "gender_pair": "female->male" if k % 2 else "male->male",
                     "decision": ALLOW if allow else FOLLOW, "allow": float(allow)})
    return pd.DataFrame(rows)


def test_demographic_contrasts_use_the_paper_subset_and_prompts_that_show_age():
    d = decisions()
    t = analysis.demographic_effects(d, SIG).set_index(["model", "factor"])
    row = t.loc[("all", "actor_age")]
    assert row.delta_pp == pytest.approx(50.0)  # 3/4 - 1/4 inside; the pooled contrast would be negative
    assert row.n_a == 8 and row.n_b == 8  # cultureatlas x instruct x balance x {full_demo, age_only} x 4
    assert set(t.reset_index()["model"]) == {"all", "m-instruct"}
    assert "source in {cultureatlas}" in row.subset
    g = t.loc[("all", "actor_gender")]
    assert g.n_a + g.n_b == 2 * 2 * 4  # full_demo and gender_only prompts of the subset
    pooled = analysis.demographic_effects(d, {}).set_index(["model", "factor"]).loc[("all", "actor_age")]
    assert pooled.delta_pp < 0 and pooled.subset == "all decisions"


def test_chi_square_over_the_subset():
    d = decisions()
    chi = analysis.chi_square_table(d, ["model", "source", "actor_age"], SIG).set_index("factor")
    assert chi.loc["model", "levels"] == 1 and chi.loc["source", "levels"] == 1  # one model kind, one source left
    assert chi.loc["actor_age", "n"] == 16  # only prompts that show age
    assert chi.loc["actor_age", "cramers_v"] == pytest.approx(0.5)
    everything = analysis.chi_square_table(d, ["model"]).set_index("factor")
    assert everything.loc["model", "n"] == len(d)


def test_subset_names_the_missing_column():
    with pytest.raises(KeyError, match="significance.sources"):
        analysis.significance_subset(pd.DataFrame({"model_kind": ["instruct"]}), {"sources": ["cultureatlas"]})
