"""PACT aggregation (count_rates_many), appendix B.2 region pairs, B.7 preference bins and the
F.4 persona vs no-persona tables and figures, on small inputs (no model)."""

import numpy as np
import pandas as pd
import pytest

from cultalign.pact import alignment, analysis, figures
from cultalign.pact.behaviour import ALLOW, FOLLOW, UNKNOWN


def _random_decisions(n=3000, seed=3):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "model": rng.choice(["m1", "m2", "m3"], n),
        "configuration": rng.choice(["C1", "C2", "C3"], n),
        "receiver_country": rng.choice([f"c{i:02d}" for i in range(40)], n),
        "actor_region": rng.choice(["MENA", "South Asia", "Pacific", "E/SE Asia"], n),
        "decision": rng.choice([FOLLOW, ALLOW, UNKNOWN], n, p=[0.55, 0.4, 0.05]),
    })


def _groupby_counts(d, keys):
    g = d.assign(valid=d.decision != UNKNOWN, allow=d.decision == ALLOW).groupby(keys, dropna=False)
    return g.agg(n=("valid", "size"), n_valid=("valid", "sum"), n_allow=("allow", "sum")).sort_index()


KEY_SETS = [["model"], ["configuration"], ["receiver_country"], ["actor_region", "model"],
            ["model", "configuration", "receiver_country"], ["receiver_country", "actor_region"]]


@pytest.mark.parametrize("max_bins,chunk", [(1 << 16, 1 << 18), (64, 97), (1, 1000)])
@pytest.mark.parametrize("categorical", [False, True])
def test_count_rates_many_equals_groupby(max_bins, chunk, categorical):
    d = _random_decisions()
    if categorical:
        d = d.astype("category")
    tables = analysis.count_rates_many(d, KEY_SETS, max_bins=max_bins, chunk=chunk)
    for keys, t in zip(KEY_SETS, tables):
        ref = _groupby_counts(d.astype(str), keys)
        got = t.astype({k: str for k in keys}).set_index(keys).sort_index()
        assert got.index.equals(ref.index), keys
        assert (got[["n", "n_valid", "n_allow"]].to_numpy() == ref.to_numpy()).all(), keys
        assert np.allclose(got["allow_rate"], ref["n_allow"] / ref["n_valid"])
        assert int(t["n"].sum()) == len(d)


def test_count_rates_row_order_first_key_fastest():
    d = pd.DataFrame({"a": ["x", "y", "x", "y"], "b": ["p", "p", "q", "q"], "decision": [ALLOW, FOLLOW, ALLOW, ALLOW]})
    t = analysis.count_rates(d, ["a", "b"])
    assert list(zip(t.a, t.b)) == [("x", "p"), ("y", "p"), ("x", "q"), ("y", "q")]
    assert t.allow_rate.tolist() == [1.0, 0.0, 1.0, 1.0]


def test_count_rates_missing_key_is_own_level_and_missing_decision_fails():
    d = pd.DataFrame({"a": ["x", None, "x", None, "y"], "decision": [ALLOW, FOLLOW, UNKNOWN, ALLOW, FOLLOW]})
    t = analysis.count_rates(d, ["a"])
    assert t["a"].isna().sum() == 1
    nan_row = t[t["a"].isna()].iloc[0]
    assert (nan_row.n, nan_row.n_valid, nan_row.n_allow) == (2, 2, 1)
    x = t[t["a"] == "x"].iloc[0]
    assert (x.n, x.n_valid, x.n_allow) == (2, 1, 1)
    with pytest.raises(ValueError, match="1 rows have no value in column 'decision'"):
        analysis.count_rates(d.assign(decision=[ALLOW, None, FOLLOW, FOLLOW, FOLLOW]), ["a"])
    with pytest.raises(KeyError, match="no column 'zz'"):
        analysis.count_rates(d, ["zz"])


def test_count_rates_empty_table():
    d = pd.DataFrame({"a": pd.Series([], dtype=object), "decision": pd.Series([], dtype=object)})
    t = analysis.count_rates(d, ["a"])
    assert len(t) == 0 and {"n", "n_valid", "n_allow", "allow_rate"} <= set(t.columns)


def test_region_pair_rates_by_hand():
    d = pd.DataFrame({
        "model": ["m1"] * 4 + ["m2"] * 4,
        "source": ["normad", "normad", "cultureatlas", "normad"] * 2,
        "actor_region": ["MENA", "MENA", "MENA", "N. Am./W. Eur."] * 2,
        "receiver_region": ["MENA"] * 4 + ["MENA", "MENA", "MENA", "MENA"],
        "decision": [ALLOW, FOLLOW, UNKNOWN, ALLOW, FOLLOW, FOLLOW, ALLOW, ALLOW],
    })
    t = analysis.region_pair_rates(d).set_index(["model", "source", "actor_region", "receiver_region"])
    # all models, all sources, MENA->MENA: m1 (A, F, U) + m2 (F, F, A) -> 2 allow of 5 valid
    r = t.loc[("all", "all", "MENA", "MENA")]
    assert (r.n, r.n_valid, r.n_unknown, r.n_allow) == (6, 5, 1, 2)
    assert r.allow_rate == pytest.approx(0.4)
    assert t.loc[("m1", "all", "MENA", "MENA"), "allow_rate"] == pytest.approx(0.5)
    assert t.loc[("m2", "cultureatlas", "MENA", "MENA"), "allow_rate"] == pytest.approx(1.0)
    assert t.loc[("all", "normad", "N. Am./W. Eur.", "MENA"), "allow_rate"] == pytest.approx(1.0)
    assert ("m1", "all", "MENA", "N. Am./W. Eur.") not in t.index  # empty cells are absent


@pytest.mark.parametrize("text,strength,theme", [
    ("avoid caffeine late in the day", "strong", "health/diet/safety"),
    ("start eating while the food is still hot to save time", "low_stakes", "convenience/efficiency"),
    ("use whichever hand is free", "low_stakes", "convenience/efficiency"),
    ("offer a handshake the way they are used to", "other", "comfort/habit"),
    ("keep personal matters private", "strong", "privacy/boundary/values"),
    ("say directly what they think", "other", "social directness/communication"),
    ("wear a favourite colourful outfit", "other", "taste/style/identity"),
    ("fasting for religious reasons", "strong", "privacy/boundary/values"),
    ("likes red", "other", "other"),
    (float("nan"), "other", "other"),
])
def test_preference_bins_of_text(text, strength, theme):
    assert analysis.preference_strength(text) == strength
    assert analysis.preference_theme(text) == theme


def _pref_decisions():
    rows = []
    prefs = {"health": "avoid caffeine for health", "quick": "leave early to save time", "style": "wear jeans"}
    # (model, preference, demo_ablation, decision)
    spec = [("m1", "health", "full_demo", ALLOW), ("m1", "health", "full_demo", FOLLOW),
            ("m1", "quick", "full_demo", FOLLOW), ("m1", "style", "full_demo", ALLOW),
            ("m1", "health", "no_demo", ALLOW),  # excluded: appendix B.7 uses full_demo only
            ("m2", "health", "full_demo", ALLOW), ("m2", "health", "full_demo", ALLOW),
            ("m2", "health", "full_demo", ALLOW), ("m2", "health", "full_demo", UNKNOWN),
            ("m2", "quick", "full_demo", ALLOW)]
    for i, (m, p, demo, dec) in enumerate(spec):
        rows.append({"model": m, "personal_preference": prefs[p], "demo_ablation": demo, "decision": dec,
                     "preference_type": {"health": "value_style", "quick": "convenience", "style": "habit"}[p],
                     "receiver_country": "India" if i % 2 else "Japan"})
    return analysis.add_preference_bins(pd.DataFrame(rows))


def test_preference_bins_weighted_average_full_demo_only():
    b = analysis.preference_bins(_pref_decisions(), n_boot=200, seed=0)
    s = b[b.grouping == "strength"].set_index(["model", "level"])
    # strong, full_demo: m1 1/2 valid; m2 3/3 valid (one UNKNOWN) -> pooled 4/5
    assert s.loc[("m1", "strong"), "allow_rate"] == pytest.approx(0.5)
    assert s.loc[("m2", "strong"), "n_unknown"] == 1
    assert s.loc[("all", "strong"), "allow_rate"] == pytest.approx(4 / 5)
    assert s.loc[("all", "strong"), "n"] == 6
    # weighted average across models = valid-count-weighted mean of the model rates
    w = (0.5 * 2 + 1.0 * 3) / 5
    assert s.loc[("all", "strong"), "allow_rate"] == pytest.approx(w)
    assert s.loc[("all", "low_stakes"), "allow_rate"] == pytest.approx(0.5)
    assert s.loc[("all", "other"), "allow_rate"] == pytest.approx(1.0)
    assert list(s.loc["all"].index) == ["low_stakes", "strong", "other"]  # paper order
    t = b[b.grouping == "theme"].set_index(["model", "level"])
    assert t.loc[("all", "health/diet/safety"), "n_valid"] == 5
    assert t.loc[("all", "taste/style/identity"), "allow_rate"] == pytest.approx(1.0)
    g = b[b.grouping == "generation_type"].set_index(["model", "level"])
    assert g.loc[("all", "convenience"), "n_valid"] == 2
    lo, hi = s.loc[("all", "strong"), ["ci_low", "ci_high"]]
    assert lo <= 0.8 <= hi


def test_strength_by_country():
    t = analysis.strength_by_country(_pref_decisions()).set_index("receiver_country")
    # Japan (even rows, full_demo): health A, quick F, health A, health A(m2 idx 6) ... computed by hand below
    d = _pref_decisions()
    d = d[d.demo_ablation == "full_demo"]
    for c in ("India", "Japan"):
        for lvl in ("low_stakes", "strong"):
            g = d[(d.receiver_country == c) & (d.preference_strength == lvl) & (d.decision != UNKNOWN)]
            exp = (g.decision == ALLOW).mean() if len(g) else np.nan
            got = t.loc[c, f"allow_rate_{lvl}"]
            assert (np.isnan(exp) and np.isnan(got)) or got == pytest.approx(exp)
            assert t.loc[c, f"n_valid_{lvl}"] == len(g)
    j = t.loc["Japan"]
    assert j.strong_minus_low_stakes_pp == pytest.approx(100 * (j.allow_rate_strong - j.allow_rate_low_stakes))


def _survey_and_humans():
    """Two items, two persona countries; the model follows culture on everything without persona,
    and with an India persona never on s1."""
    h = []
    for item, frame, country, follows in (("s1", "norm", "India", [0, 0, 1, 0]), ("s2", "norm", "India", [1, 1]),
                                          ("s1", "norm", "Brazil", [1, 1]), ("s2", "norm", "Brazil", [1, 0])):
        for k, f in enumerate(follows):
            h.append({"participant": f"{country}{k}", "participant_country": country, "scenario_id": item,
                      "question_type": frame, "follow_culture": f})
    m = []
    for item in ("s1", "s2"):
        m.append({"model": "m", "scenario_id": item, "question_type": "norm", "persona_setting": "no_persona",
                  "persona_country": "", "prompt_format": "compact_json", "position_audit": False,
                  "follow_culture": 1.0})
        for country in ("India", "Brazil"):
            f = 0.0 if (country, item) == ("India", "s1") else 1.0
            m.append({"model": "m", "scenario_id": item, "question_type": "norm", "persona_setting": "persona",
                      "persona_country": country, "prompt_format": "compact_json", "position_audit": False,
                      "follow_culture": f})
    # an audit row and another format must not count
    m.append({**m[0], "position_audit": True, "follow_culture": 0.0})
    m.append({**m[0], "prompt_format": "minimal_direct", "follow_culture": 0.0})
    return pd.DataFrame(m), pd.DataFrame(h)


def test_persona_country_effects_by_hand():
    m, h = _survey_and_humans()
    t = alignment.persona_country_effects(m, h, "compact_json", "scenario")
    t = t.set_index(["model", "frame", "persona_country"])
    # India humans: h(s1)=0.25, h(s2)=1 -> mean 0.625; no persona m0 = 1,1 -> MAE 0.375;
    # India persona m = 0,1 -> mean 0.5 -> MAE 0.125; delta -0.25 (persona helps)
    r = t.loc[("m", "norm", "India")]
    assert r.mae_no_persona == pytest.approx(0.375) and r.mae_persona == pytest.approx(0.125)
    assert r.delta == pytest.approx(-0.25)
    assert r.mae_item_no_persona == pytest.approx((0.75 + 0) / 2)
    assert r.mae_item_persona == pytest.approx((0.25 + 0) / 2)
    # Brazil humans: 1, 0.5 -> 0.75; persona and no persona both 1 -> delta 0
    assert t.loc[("m", "norm", "Brazil"), "delta"] == pytest.approx(0.0)
    assert t.loc[("all", "avg", "India"), "delta"] == pytest.approx(-0.25)
    assert t.loc[("m", "norm", "India"), "n_items"] == 2


def test_persona_effects_table():
    m, h = _survey_and_humans()
    m = m.assign(culture_is_A=True)
    metrics = alignment.alignment_metrics(m, h, "scenario")
    gap = pd.DataFrame({"model": ["m", "m"], "persona_setting": ["no_persona", "persona"], "gap": [0.1, 0.3]})
    e = alignment.persona_effects(metrics, gap, "compact_json").set_index(["model", "frame", "metric"])
    mae = e.loc[("m", "avg", "rate_gap_aggregate")]
    ref = metrics[metrics.prompt_format == "compact_json"].set_index("persona_setting")["rate_gap_aggregate"]
    assert mae.no_persona == pytest.approx(ref["no_persona"]) and mae.persona == pytest.approx(ref["persona"])
    assert mae.delta == pytest.approx(ref["persona"] - ref["no_persona"])
    assert e.loc[("m", "avg", "norm_personal_gap"), "delta"] == pytest.approx(0.2)


def test_appendix_figures_write_png(tmp_path):
    m, h = _survey_and_humans()
    metrics = alignment.alignment_metrics(m.assign(culture_is_A=True), h, "scenario")
    gap = pd.DataFrame({"model": ["m", "m"], "persona_setting": ["no_persona", "persona"], "gap": [0.1, 0.3]})
    figures.figure15(alignment.persona_effects(metrics, gap, "compact_json"), str(tmp_path / "f15.png"), True)
    effects = alignment.persona_country_effects(m, h, "compact_json", "scenario")
    figures.figure16(effects, str(tmp_path / "f16.png"), True)
    d = _random_decisions().rename(columns={"configuration": "receiver_region"})
    d["source"] = "normad"
    from cultalign.pact.geography import REGIONS

    figures.region_heatmap(analysis.region_pair_rates(d), str(tmp_path / "heat.png"), REGIONS)
    for f in ("f15.png", "f16.png", "heat.png"):
        assert (tmp_path / f).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_rates_by_model_counts_and_binomial_ci():
    d = _random_decisions()
    d["allow"] = (d.decision == ALLOW).astype(float).where(d.decision != UNKNOWN)
    t = analysis.rates_by_model(d, ["configuration"], n_boot=500, seed=1)
    ref = _groupby_counts(d, ["model", "configuration"])
    assert list(zip(t.model, t.configuration)) == list(ref.index)  # sorted like a group-by
    assert (t[["n", "n_valid"]].to_numpy() == ref[["n", "n_valid"]].to_numpy()).all()
    assert (t["n_unknown"] == ref["n"].to_numpy() - ref["n_valid"].to_numpy()).all()
    assert np.allclose(t["allow_rate"], d.groupby(["model", "configuration"])["allow"].mean().to_numpy())
    assert ((t.ci_low <= t.allow_rate) & (t.allow_rate <= t.ci_high) & (t.ci_high - t.ci_low < 0.2)).all()
    assert list(analysis.rates_by_model(d, [], 100, 1)["model"]) == ["m1", "m2", "m3"]


def test_bootstrap_rows_draw_their_own_streams():
    # two rows with equal counts: with one stream for the whole table their CIs were identical
    d = pd.DataFrame({"model": ["m1"] * 20000 + ["m2"] * 20000, "configuration": "c",
                      "decision": ([ALLOW] * 7000 + [FOLLOW] * 13000) * 2})
    t = analysis.rates_by_model(d, [], n_boot=200, seed=1)
    assert t.allow_rate.iloc[0] == t.allow_rate.iloc[1]
    assert (t.ci_low.iloc[0], t.ci_high.iloc[0]) != (t.ci_low.iloc[1], t.ci_high.iloc[1])
    r = analysis.rates_by(d, ["model", "configuration"], n_boot=200, seed=1).set_index(["factor", "level"])
    assert tuple(r.loc[("model", "m1"), ["ci_low", "ci_high"]]) != tuple(r.loc[("model", "m2"), ["ci_low", "ci_high"]])
    # the same row in another table draws another stream; the same table and row, the same one
    again = analysis.rates_by_model(d, [], n_boot=200, seed=1)
    other = analysis.rates_by_model(d, [], n_boot=200, seed=1, table="another")
    assert again.equals(t) and not other[["ci_low", "ci_high"]].equals(t[["ci_low", "ci_high"]])
    pairs = [{"comparison": "x", "a": "m1", "b": "m2"}, {"comparison": "y", "a": "m1", "b": "m2"}]
    p = analysis.model_pair_rates(d, pairs, n_boot=200, seed=1)
    assert (p.ci_low.iloc[0], p.ci_high.iloc[0]) != (p.ci_low.iloc[1], p.ci_high.iloc[1])
    bins = analysis.add_preference_bins(d.assign(personal_preference="avoid caffeine for health",
                                                 demo_ablation="full_demo"))
    b = analysis.preference_bins(bins, n_boot=200, seed=1).set_index(["grouping", "model", "level"])
    cis = [tuple(b.loc[("strength", m, "strong"), ["ci_low", "ci_high"]]) for m in ("m1", "m2")]
    assert cis[0] != cis[1]


def test_model_pair_rates_by_hand_and_figure4(tmp_path):
    # base: 1 allow of 4 valid (+1 UNKNOWN, not counted); instruct: 3 of 4; large model absent
    dec = ([ALLOW, FOLLOW, FOLLOW, FOLLOW, UNKNOWN] + [ALLOW, ALLOW, ALLOW, FOLLOW])
    d = pd.DataFrame({"model": ["base"] * 5 + ["inst"] * 4, "decision": dec})
    pairs = [{"comparison": "base_instruct", "a": "base", "b": "inst"},
             {"comparison": "small_large", "a": "inst", "b": "missing-large"}]
    t = analysis.model_pair_rates(d, pairs, n_boot=2000, seed=1)
    assert list(t.columns) == analysis.PAIR_COLUMNS
    r = t.iloc[0]
    assert (r.n_valid_a, r.n_valid_b) == (4, 4)
    assert r.allow_rate_a == pytest.approx(0.25) and r.allow_rate_b == pytest.approx(0.75)
    assert r.diff_b_minus_a == pytest.approx(0.5)
    assert r.ci_low < 0.5 < r.ci_high and -1 <= r.ci_low and r.ci_high <= 1
    miss = t.iloc[1]
    assert miss.n_valid_b == 0 and np.isnan(miss.allow_rate_b) and np.isnan(miss.ci_low)
    kinds = pd.DataFrame({"model": ["base", "inst"], "model_kind": ["base", "instruct"], "allow_rate": [0.25, 0.75]})
    out = tmp_path / "f4.png"
    figures.figure4(kinds, str(out), t)
    assert out.stat().st_size > 1000
    figures.figure4(kinds, str(tmp_path / "f4b.png"), t.iloc[:0])  # no pairs configured: one panel


def test_unknown_model_names_fail_naming_the_key():
    from cultalign.config import ConfigError, check_model_refs, load_schema

    cfg = {"models": {"m1": {}, "m2": {}},
           "pact": {"models": ["m1"], "comparison_models": ["m2", "nope"],
                    "model_pairs": [{"comparison": "base_instruct", "a": "m2", "b": "gone"}],
                    "construction_model": None}}
    with pytest.raises(ConfigError) as e:
        check_model_refs(cfg, load_schema())
    msg = str(e.value)
    assert "'pact.comparison_models[1]': 'nope'" in msg and "'pact.model_pairs[0].b': 'gone'" in msg
    assert "'m1'" not in msg.split("declared")[0]
    cfg["pact"]["comparison_models"] = ["m2"]
    cfg["pact"]["model_pairs"][0]["b"] = "m1"
    check_model_refs(cfg, load_schema())
