"""Outputs of the paper the workflow computes: Table 6 per model, Figure 12 (B.4), Table 13's
scenario-type row, Table 28 and the section 5.2 agreement cells, the participant age split."""

import itertools

import pandas as pd
import pytest

from cultalign.pact import analysis, figures, human
from cultalign.pact.labels import ALLOW, FOLLOW

SIG = {"sources": ["cultureatlas"], "model_kinds": ["instruct"], "system_prompts": ["balance"],
       "age_ablations": ["full_demo", "age_only"], "gender_ablations": ["full_demo", "gender_only"],
       "scenario_type": "relation"}


def decisions() -> pd.DataFrame:
    """m1 allows the preference for younger -> younger pairs only; m2 for female actors only on NormAd;
    prompts that do not show the attribute allow nothing; far relations allow one decision in four more."""
    rows = []
    grid = itertools.product(["m1", "m2"], ["cultureatlas", "normad"], ["full_demo", "age_only", "gender_only"],
                             ["younger", "older"], ["younger", "older"], ["female", "male"], ["same", "far"])
    for model, source, abl, aa, ra, ag, rel in grid:
        if model == "m1":
            allow = abl in SIG["age_ablations"] and aa == ra == "younger"
        else:
            allow = abl in SIG["gender_ablations"] and ag == "female" and source == "normad"
        rows.append({"model": model, "model_kind": "instruct", "source": source, "system_prompt": "balance",
                     "demo_ablation": abl, "actor_age": aa, "receiver_age": ra, "actor_gender": ag,
                     "receiver_gender": "male", "age_pair": f"{aa}->{ra}", "gender_pair": f"{ag}->male",
                     "relation": rel, "decision": ALLOW if allow else FOLLOW, "allow": float(allow)})
    return pd.DataFrame(rows)


def test_table6_pair_rates_per_model_over_prompts_that_show_the_attribute():
    t = analysis.pair_rates(decisions(), 50, 1, SIG).set_index(["factor", "model", "pair"])
    assert t.loc[("age_pair", "m1", "younger->younger"), "allow_rate"] == 1.0
    assert t.loc[("age_pair", "m1", "older->younger"), "allow_rate"] == 0.0
    # pooled: m1 1.0 and m2 0.125 (its full_demo prompts with a female NormAd actor) on equal counts
    assert t.loc[("age_pair", "all", "younger->younger"), "allow_rate"] == pytest.approx(0.5625)
    # gender_only prompts stay out of the age pairs: 2 sources x 2 ablations x 2 genders x 2 relations
    assert t.loc[("age_pair", "m1", "younger->younger"), "n_valid"] == 16
    assert t.loc[("gender_pair", "m2", "female->male"), "allow_rate"] == pytest.approx(0.5)  # NormAd only
    r = t.loc[("gender_pair", "m2", "female->male")]
    assert r.ci_low <= r.allow_rate <= r.ci_high


def test_figure12_effects_per_model_and_source_and_the_figure(tmp_path):
    t = analysis.figure5_demographic_effects(decisions(), SIG, by=("source",))
    assert set(t["source"]) == {"cultureatlas", "normad"}
    x = t.set_index(["model", "source", "factor", "role"])
    assert x.loc[("m2", "normad", "gender", "actor"), "delta_pp"] == pytest.approx(100.0)
    assert x.loc[("m2", "cultureatlas", "gender", "actor"), "delta_pp"] == pytest.approx(0.0)
    assert x.loc[("all", "normad", "gender", "actor"), "n_a"] == 2 * 2 * 2 * 2 * 2  # models x abl x ages x rel
    s = analysis.direction_shares(t).set_index(["factor", "role"])
    # gender, actor: m2 on NormAd is the one positive setting of four (m1, m2 x two sources)
    assert s.loc[("gender", "actor"), "n_settings"] == 4 and s.loc[("gender", "actor"), "n_positive"] == 1
    assert s.loc[("age", "actor"), "share_positive"] == pytest.approx(0.5)  # m1 on both sources
    out = tmp_path / "figure12.png"
    figures.figure12(t, str(out))
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_table13_scenario_type_row_names_its_column():
    d = decisions().assign(source="cultureatlas")
    chi = analysis.chi_square_table(d, ["model", "relation"], SIG).set_index("factor")
    assert chi.loc["scenario_type", "column"] == "relation"
    assert chi.loc["scenario_type", "cramers_v"] == pytest.approx(chi.loc["relation", "cramers_v"])
    with pytest.raises(KeyError, match="significance.scenario_type"):
        analysis.chi_square_table(d.drop(columns="relation"), ["model"], SIG)


def _humans():
    """One scenario, same relation: the older receiver's four participants all follow culture, the
    younger receiver's split 1-1; the pooled scenario splits 5-1."""
    rows = []
    for k, (ra, f) in enumerate([("older", 1)] * 4 + [("younger", 1), ("younger", 0)]):
        for q in ("personal", "norm"):
            rows.append({"participant": f"p{k}", "participant_country": "India", "participant_age": "younger",
                         "participant_gender": "female", "scenario_id": "s1", "scenario_country": "India",
                         "relation": "same", "receiver_age": ra, "receiver_gender": "male", "question_type": q,
                         "follow_culture": f, "synthetic": human.SYNTHETIC_LABEL})
    return pd.DataFrame(rows)


def test_agreement_per_scenario_and_demographic_group_and_table28():
    h = _humans()
    cells = human.agreement_cells(h, "relation", ["receiver_age", "receiver_gender"])
    c = cells[cells.question_type == "norm"].set_index("receiver_age")
    assert c.loc["older", "agreement"] == 1.0 and c.loc["younger", "agreement"] == 0.5
    assert c.loc["older", "n"] == 4
    a = human.agreement(h, "relation", 2, ["receiver_age", "receiver_gender"]).set_index("question_type")
    assert a.loc["norm", "agreement"] == pytest.approx(0.75) and a.loc["norm", "n_groups"] == 2
    whole = human.agreement(h, "relation", 2, []).set_index("question_type")
    assert whole.loc["norm", "agreement"] == pytest.approx(5 / 6)  # the scenario pooled over its receivers
    rel = human.relation_rates(h, 2, ["receiver_age", "receiver_gender"]).set_index(["relation", "question_type"])
    assert rel.loc[("same", "norm"), "culture_rate"] == pytest.approx(5 / 6)
    assert rel.loc[("same", "norm"), "agreement"] == pytest.approx(0.75) and rel.loc[("same", "norm"), "n"] == 6
    gaps, agree, cells2, rel2 = human.analyse(h, 2, ["receiver_age", "receiver_gender"])
    assert (rel2["data"] == "synthetic").all() and len(cells2) == 4


def test_participant_age_split_is_the_configured_age():
    assert human.age_group("34", 35) == "younger" and human.age_group("35", 35) == "older"
    assert human.age_group("34", 30) == "older"
    sc = pd.DataFrame({"scenario_id": ["a", "b"], "country": ["India", "Brazil"]})
    raw = human.synthetic_prolific(sc, ["India"], 30, 2, "orange", seed=1).astype(str)
    at35, _ = human.ingest_prolific(raw, "x.csv", "orange", "s", 35)
    at60, _ = human.ingest_prolific(raw, "x.csv", "orange", "s", 60)
    young35, young60 = (at35.participant_age == "younger").sum(), (at60.participant_age == "younger").sum()
    assert young60 > young35
