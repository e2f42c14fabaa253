"""Decision parsing, analyses, human-study ingestion and alignment metrics (no model)."""

import numpy as np
import pandas as pd
import pytest

from cultalign.pact import alignment, analysis, annotation, behaviour, human
from cultalign.pact.behaviour import ALLOW, FOLLOW, UNKNOWN
from cultalign.pact.ingest import PactDataError


@pytest.mark.parametrize("text,letter", [
    ("Answer: A\nBecause ...", "A"), ("answer - b. The actor", "B"), ("B. Decline the coffee", "B"),
    ("The answer is (A).", "A"), ("FOLLOW_CULTURE", FOLLOW), ("Option A", "A"),
])
def test_parse_letter(text, letter):
    assert behaviour.parse_letter(text) == letter


@pytest.mark.parametrize("text", ["I am not sure.", "Answer: A ... Answer: B", "", "Both are fine"])
def test_parse_letter_rejects(text):
    with pytest.raises(ValueError):
        behaviour.parse_letter(text)


def test_decision_mapping_follows_option_order():
    assert behaviour.decision_of("A", True) == FOLLOW
    assert behaviour.decision_of("A", False) == ALLOW
    assert behaviour.decision_of("B", False) == FOLLOW


def _row(**kw):
    r = dict(scenario="S", receiver_country="India", actor_country="Japan", actor_age="older",
             actor_gender="female", receiver_age="younger", receiver_gender="male", cultural_expectation="CE",
             personal_preference="PP", configuration="C2", culture_option="eat later",
             preference_option="eat now", culture_is_A=False, demo_ablation="full_demo", system_prompt="balance")
    r.update(kw)
    return r


def test_prompt_variants():
    m = behaviour.build_messages(_row())
    user = m[1]["content"]
    assert "A. eat now" in user and "B. eat later" in user
    assert "older woman from Japan" in user and "younger man from India" in user
    assert "receiver would rather" in user
    assert m[0]["content"] != behaviour.build_messages(_row(system_prompt="no_balance"))[0]["content"]
    u = behaviour.build_messages(_row(demo_ablation="no_demo"))[1]["content"]
    assert "older" not in u and "woman" not in u and "a person from Japan" in u
    assert "older person from Japan" in behaviour.build_messages(_row(demo_ablation="age_only"))[1]["content"]
    assert "a woman from Japan" in behaviour.build_messages(_row(demo_ablation="gender_only"))[1]["content"]


def _decisions():
    rows = []
    for i, (dec, cfg) in enumerate([(ALLOW, "C1"), (FOLLOW, "C1"), (UNKNOWN, "C1"), (ALLOW, "C3"), (ALLOW, "C3"),
                                    (FOLLOW, "C3")]):
        rows.append({"condition_id": f"c{i}", "configuration": cfg, "decision": dec, "actor_age": "younger",
                     "receiver_age": "older", "actor_gender": "female", "receiver_gender": "male",
                     "personal_preference": "avoid caffeine" if i % 2 else "save time",
                     "receiver_region": "MENA" if i < 3 else "South Asia"})
    d = pd.DataFrame(rows)
    return analysis.decisions_table(d.drop(columns=["decision"]), d[["condition_id", "decision"]], "m", "instruct")


def test_rates_count_unknown_and_exclude_it():
    d = _decisions()
    r = analysis.rates_by(d, ["configuration"], n_boot=50, seed=0).set_index("level")
    assert r.loc["C1", "n"] == 3 and r.loc["C1", "n_valid"] == 2 and r.loc["C1", "n_unknown"] == 1
    assert r.loc["C1", "allow_rate"] == pytest.approx(0.5)
    assert r.loc["C3", "allow_rate"] == pytest.approx(2 / 3)
    assert set(analysis.preference_strength(x) for x in ["avoid caffeine", "save time", "likes red"]) == \
        {"strong", "low_stakes", "other"}
    chi = analysis.chi_square_table(d, ["configuration"])
    assert chi.loc[0, "n"] == 5


def _human_long():
    # 2 items x 2 questions; item s1 split 3/1, item s2 unanimous culture
    rows = []
    for item, follows in (("s1", [1, 1, 1, 0]), ("s2", [1, 1, 1, 1])):
        for j, f in enumerate(follows):
            for q in ("personal", "norm"):
                rows.append({"participant": f"p{j}", "participant_country": "Brazil" if j < 2 else "India",
                             "participant_age": "younger", "participant_gender": "female", "scenario_id": item,
                             "scenario_country": "Brazil", "relation": "same" if j < 2 else "far",
                             "receiver_age": "older", "receiver_gender": "male", "question_type": q,
                             "follow_culture": f if q == "norm" else 1 - f if j == 0 else f,
                             "synthetic": human.SYNTHETIC_LABEL})
    return pd.DataFrame(rows)


def test_gap_and_agreement_by_hand():
    h = _human_long()
    g = human.norm_personal_gap(h).set_index("participant_country")
    # Brazil: personal follows = s1 [0,1], s2 [0,1] -> allow 0.5 ; norm follows all 1 -> allow 0
    assert g.loc["Brazil", "gap"] == pytest.approx(0.5)
    a = human.agreement(h, "relation", 2, []).set_index(["question_type", "level"])
    assert a.loc[("norm", "same"), "agreement"] == pytest.approx(1.0)
    assert a.loc[("personal", "same"), "agreement"] == pytest.approx(0.5)


def test_synthetic_prolific_filters_and_hashed_ids():
    sc = pd.DataFrame({"scenario_id": [f"normad-{i}" for i in range(6)], "country": ["India", "Brazil", "Japan",
                                                                                      "Kenya", "Peru", "France"]})
    cfg = {"participant_countries": ["Brazil", "India", "South Africa", "United Kingdom", "United States"],
           "participants_per_country": 20, "scenarios_per_participant": 3, "attention_answer": "orange"}
    raw = human.synthetic_prolific(sc, **cfg, seed=5)
    assert (raw["synthetic"] == human.SYNTHETIC_LABEL).all()
    again = human.synthetic_prolific(sc, **cfg, seed=5)
    pd.testing.assert_frame_equal(raw, again)
    long, counts = human.ingest_prolific(raw.astype(str), "export.csv", "orange", "salt", 35)
    c = counts.set_index("filter")
    removed = c.loc[["consent", "completed", "valid_prolific_id", "attention_check", "duplicate_submission",
                     "bot_or_llm_flag"], "removed"]
    assert removed.sum() == len(raw) - c.loc["bot_or_llm_flag", "remaining"]
    assert c.loc["duplicate_submission", "removed"] >= 1 and c.loc["completed", "removed"] >= 1
    raw_ids = set(raw["participant_id"])
    assert not set(long["participant"]) & raw_ids
    assert long["participant"].str.match(r"^p_[0-9a-f]{16}$").all()
    text = long.to_csv()
    assert not any(pid in text for pid in raw_ids if len(pid) == 24)
    assert set(long["choice"]) <= {FOLLOW, ALLOW}
    assert len(long) == 2 * 3 * c.loc["bot_or_llm_flag", "remaining"]


def test_id_salt_comes_from_the_environment_for_a_real_export():
    demo = {"id_salt": "demo-salt", "id_salt_env": None, "prolific_export": None}
    assert human.id_salt(**demo, environ={}) == "demo-salt"
    real = {"id_salt": "demo-salt", "id_salt_env": "PACT_ID_SALT", "prolific_export": "export.csv"}
    assert human.id_salt(**real, environ={"PACT_ID_SALT": "s3cret"}) == "s3cret"
    with pytest.raises(ValueError, match="PACT_ID_SALT is unset or empty"):
        human.id_salt(**real, environ={"PACT_ID_SALT": ""})
    with pytest.raises(ValueError, match="id_salt_env is not"):
        human.id_salt(**{**real, "id_salt_env": None}, environ={})
    # the salt changes every hash: a public salt would let anyone recompute them
    assert human.salted_hash("5f1a", "s3cret") != human.salted_hash("5f1a", "demo-salt")


def test_prolific_errors_name_column():
    sc = pd.DataFrame({"scenario_id": ["a", "b"], "country": ["India", "Brazil"]})
    cfg = {"participant_countries": ["India"], "participants_per_country": 30, "scenarios_per_participant": 2,
           "attention_answer": "orange"}
    raw = human.synthetic_prolific(sc, **cfg, seed=1).astype(str)
    with pytest.raises(PactDataError, match="x.csv, line 1, field 's1_norm': missing column"):
        human.ingest_prolific(raw.drop(columns=["s1_norm"]), "x.csv", "orange", "s", 35)
    bad = raw.copy()
    ok = (bad.consent == "yes") & bad.status.isin(["APPROVED", "AWAITING REVIEW"]) & \
        bad.participant_id.str.match(r"^[0-9a-f]{24}$") & (bad.attention_check == "orange") & (bad.bot_flag == "")
    i = bad.index[ok][0]
    bad.loc[i, "s2_personal"] = "C"
    with pytest.raises(PactDataError, match=rf"x\.csv, field 's2_personal': record {i + 1}: expected A or B"):
        human.ingest_prolific(bad, "x.csv", "orange", "s", 35)


def test_alignment_metrics_both_mae_variants_and_sign():
    h = _human_long()  # norm: s1 h=0.75, s2 h=1.0
    rows = []
    # persona outputs: on s1 the model always follows culture, on s2 never
    for item, outs in (("s1", [1, 1]), ("s2", [0, 0])):
        for k, f in enumerate(outs):
            rows.append({"model": "m", "scenario_id": item, "question_type": "norm", "persona_setting": "persona",
                         "prompt_format": "compact_json", "follow_culture": float(f), "position_audit": False,
                         "culture_is_A": True})
    m = alignment.alignment_metrics(pd.DataFrame(rows), h, "scenario").iloc[0]
    assert m.rate_mae_item == pytest.approx((abs(1 - 0.75) + abs(0 - 1.0)) / 2)
    assert m.rate_gap_aggregate == pytest.approx(abs(0.5 - 0.875))
    assert m.signed_culture_gap == pytest.approx(((1 - 0.75) + (0 - 1.0)) / 2)  # negative: under-selects culture
    assert m.majority_alignment == pytest.approx(0.5)  # s1 matches the human majority, s2 does not
    assert np.isnan(m.uncertainty_corr)  # two items only
    assert m.rate_mae_item != m.rate_gap_aggregate


def test_position_audit_and_summary():
    rows = []
    for item in ("s1", "s2"):
        for order in (True, False):
            rows.append({"model": "m", "scenario_id": item, "question_type": "norm", "persona_setting": "no_persona",
                         "prompt_format": "compact_json", "culture_is_A": order, "position_audit": not order,
                         "follow_culture": 1.0 if order else 0.0})
    a = alignment.position_audit(pd.DataFrame(rows)).iloc[0]
    assert a.culture_rate_when_A == 1.0 and a.culture_rate_when_B == 0.0 and a.delta_pp == 100.0


def test_annotation_table_and_errors(tmp_path):
    ann = pd.DataFrame({"item_id": ["i1", "i1", "i2", "i2"], "annotator": ["a", "b", "a", "b"],
                        "criterion": ["c"] * 4, "label": [1, 1, 1, 0]})
    t = annotation.agreement_table(ann).set_index("criterion")
    assert t.loc["pooled", "observed_agreement"] == pytest.approx(0.5)
    with pytest.raises(PactDataError, match="ann.tsv, field 'label': record 2: expected 0 or 1"):
        annotation.agreement_table(ann.assign(label=[1, 2, 1, 0]), "ann.tsv")


def test_count_rates_matches_groupby():
    rng = np.random.default_rng(2)
    d = pd.DataFrame({"model": rng.choice(["m1", "m2"], 500), "configuration": rng.choice(["C1", "C2", "C3"], 500),
                      "decision": rng.choice([FOLLOW, ALLOW, UNKNOWN], 500, p=[0.6, 0.35, 0.05])})
    fast = analysis.count_rates(d, ["model", "configuration"]).set_index(["model", "configuration"]).sort_index()
    g = d.assign(valid=d.decision != UNKNOWN, allow=d.decision == ALLOW).groupby(["model", "configuration"])
    ref = g.agg(n=("valid", "size"), n_valid=("valid", "sum"), n_allow=("allow", "sum")).sort_index()
    assert (fast[["n", "n_valid", "n_allow"]].to_numpy() == ref.to_numpy()).all()
    assert np.allclose(fast["allow_rate"], ref["n_allow"] / ref["n_valid"])


def bootstrap_rate_ci(values, n_boot: int, seed: int, level: float = 0.95) -> tuple[float, float]:
    """Reference: percentile bootstrap CI of the mean of 0/1 values, resampling the values."""
    x = np.asarray(values, dtype=float)
    means = np.random.default_rng(seed).choice(x, size=(n_boot, len(x)), replace=True).mean(axis=1)
    a = (1 - level) / 2
    return float(np.quantile(means, a)), float(np.quantile(means, 1 - a))


def test_binomial_bootstrap_equals_resampling_bootstrap():
    x = np.r_[np.ones(37), np.zeros(63)]
    lo1, hi1 = analysis.binomial_bootstrap_ci(37, 100, n_boot=4000, seed=1, item=("t", "row"))
    lo2, hi2 = bootstrap_rate_ci(x, n_boot=4000, seed=2)
    assert abs(lo1 - lo2) <= 0.02 and abs(hi1 - hi2) <= 0.02


def test_model_norm_personal_gap():
    rows = []
    for item in ("s1", "s2"):
        for q, f in (("personal", 0.0), ("norm", 1.0 if item == "s1" else 0.0)):
            rows.append({"model": "m", "scenario_id": item, "question_type": q, "persona_setting": "no_persona",
                         "persona_country": np.nan, "persona_age": np.nan, "persona_gender": np.nan,
                         "prompt_format": "compact_json", "position_audit": False, "follow_culture": f})
    g = alignment.model_norm_personal_gap(pd.DataFrame(rows)).iloc[0]
    assert g.p_personal_allow == 1.0 and g.p_norm_allow == 0.5 and g.gap == 0.5
    assert g.personal_norm_consistency == 0.5
