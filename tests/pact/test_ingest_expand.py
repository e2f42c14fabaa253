"""Ingestion (schema validation, counts) and the expansion arithmetic."""

import json

import numpy as np
import pandas as pd
import pytest

from cultalign.pact import expand, geography, ingest

ROOT = __import__("pathlib").Path(__file__).resolve().parents[2]
DEMO = ROOT / "resources" / "demo" / "pact"


def test_demo_sources_load():
    n = ingest.load_normad(DEMO / "normad_demo.csv")
    assert len(n) == 12 and n["Country"].nunique() == 12
    assert set(n["Gold Label"]) <= set(ingest.NORMAD_LABELS)
    ca = ingest.load_cultureatlas(DEMO / "cultureatlas_demo.json")
    assert len(ca) == 12 and ca["scenario_id"].is_unique


def _write_normad(tmp_path, rows):
    p = tmp_path / "n.csv"
    pd.DataFrame(rows, columns=ingest.NORMAD_COLUMNS).to_csv(p, index=False)
    return p


def _row(i, country="india", label="yes", story="s"):
    return [f"x{i}", country, "bg", "ax", "sub", "v", "rot", story, "ex", label]


def test_normad_errors_name_file_row_column(tmp_path):
    p = _write_normad(tmp_path, [_row(1), _row(2, label="maybe")])
    with pytest.raises(ingest.PactDataError, match=r"n\.csv, line 3, field 'Gold Label'"):
        ingest.load_normad(p)
    p = _write_normad(tmp_path, [_row(1), _row(2), _row(3, story="")])
    with pytest.raises(ingest.PactDataError, match=r"line 4, field 'Story': empty"):
        ingest.load_normad(p)
    p = tmp_path / "m.csv"
    pd.DataFrame({"ID": ["1"], "Country": ["x"]}).to_csv(p, index=False)
    with pytest.raises(ingest.PactDataError, match=r"m\.csv, line 1, field 'Background': missing column"):
        ingest.load_normad(p)
    p = _write_normad(tmp_path, [_row(1), _row(1)])
    with pytest.raises(ingest.PactDataError, match=r"line 3, field 'ID': duplicate"):
        ingest.load_normad(p)


def test_cultureatlas_error_names_row(tmp_path):
    p = tmp_path / "ca.json"
    p.write_text(json.dumps([{"country": "Peru", "keyword": "k", "positive_sample": "a", "negative_sample": "b"},
                             {"country": "", "keyword": "k", "positive_sample": "a", "negative_sample": "b"}]))
    with pytest.raises(ingest.PactDataError, match=r"ca\.json, field 'country': record 2: empty"):
        ingest.load_cultureatlas(p)


def test_normad_counts_match_real_per_country_distribution(shared_data, tmp_path):
    """A NormAd-schema file with the real per-country label counts: ingestion must report
    2,633 rows, 75 countries, 943 yes / 875 no / 815 neutral and the same per-country table."""
    dist = pd.read_csv(shared_data / "normad" / "normad_country_label_distribution_ki2025.csv")
    rows, i = [], 0
    for r in dist.itertuples():
        for lab in ("neutral", "no", "yes"):
            for _ in range(getattr(r, lab)):
                i += 1
                rows.append(_row(i, r.Country, lab, story=f"synthetic story {i}"))
    df = ingest.load_normad(_write_normad(tmp_path, rows))
    overall, per_country = ingest.normad_summary(df)
    got = dict(zip(overall.quantity, overall.value))
    assert got == {"rows": 2633, "countries": 75, "gold_yes": 943, "gold_no": 875, "gold_neutral": 815}
    merged = per_country.merge(dist, on="Country", suffixes=("", "_ref"))
    assert len(merged) == 75
    for lab in ("neutral", "no", "yes"):
        assert (merged[lab] == merged[f"{lab}_ref"]).all()
    # every NormAd country resolves geographically (needed for the expansion)
    for c in dist.Country:
        assert geography.region_of(c) in geography.REGIONS
    # and expand (Hong Kong, Taiwan, ... are not UN members: same-country actors still work)
    one = df.drop_duplicates("Country")
    assert len(expand.expand(one, seed=2)) == 75 * 48


def _scenarios(n, source, countries=("India", "Brazil", "Japan", "Kenya", "Germany", "Fiji", "Peru")):
    return pd.DataFrame({"scenario_id": [f"{source}-{i}" for i in range(n)], "source": source,
                         "country": [countries[i % len(countries)] for i in range(n)]})


@pytest.mark.slow
def test_expansion_arithmetic_paper_sizes():
    """2,633 -> 126,384 and 4,007 -> 192,336 on synthetic inputs of those sizes; 318,720 in all."""
    sc = pd.concat([_scenarios(2633, "normad"), _scenarios(4007, "cultureatlas")], ignore_index=True)
    inst = expand.expand(sc, seed=11)
    counts = expand.construction_counts({}, inst).set_index("quantity")["value"]
    assert counts["normad_instances"] == 126384
    assert counts["cultureatlas_instances"] == 192336
    assert counts["instances_total"] == 318720
    assert inst["instance_id"].is_unique
    per = inst.groupby("scenario_id").size()
    assert (per == 48).all()


def test_expansion_structure_and_relations():
    sc = _scenarios(5, "normad")
    inst = expand.expand(sc, seed=3)
    assert len(inst) == 5 * 48
    g = inst.groupby(["scenario_id", "relation"]).size()
    assert (g == 16).all()
    combos = inst.groupby("scenario_id")[["relation", "actor_age", "actor_gender", "receiver_age",
                                          "receiver_gender"]].apply(lambda d: len(d.drop_duplicates()))
    assert (combos == 48).all()
    same = inst[inst.relation == "same"]
    assert (same.actor_country == same.receiver_country).all()
    for r in inst.drop_duplicates(["scenario_id", "relation"]).itertuples():
        a, b = geography.country_info(r.actor_country), geography.country_info(r.receiver_country)
        if r.relation == "close":
            assert a["iso3"] != b["iso3"] and a["continent"] == b["continent"]
        if r.relation == "far":
            assert a["continent"] != b["continent"]
        assert geography.relation_of(r.actor_country, r.receiver_country) == r.relation
    # seeded: same seed same actors and option order; both orders occur
    again = expand.expand(sc, seed=3)
    assert (again[["actor_country", "culture_is_A"]] == inst[["actor_country", "culture_is_A"]]).all().all()
    assert 0.3 < inst["culture_is_A"].mean() < 0.7


def test_expansion_sampling_and_conditions():
    sc = _scenarios(4, "cultureatlas")
    inst = expand.expand(sc, seed=1, combinations_per_scenario=5)
    assert len(inst) == 20 and (inst.groupby("scenario_id").size() == 5).all()
    conds = expand.conditions(inst, ["C1", "C2", "C3"], ["full_demo", "no_demo"], ["balance", "no_balance"])
    assert len(conds) == 20 * 12 and conds["condition_id"].is_unique
    assert expand.expected_instances(6640) == 318720


def test_real_cultureatlas_partial_copy_ingest_and_expand(shared_data):
    """Real data: the partial CultureAtlas copy ingests, and all its countries expand."""
    ca = ingest.load_cultureatlas(shared_data / "cultureatlas" / "cultureAtlas_partial_CultureDistill.json")
    assert len(ca) == 3119 and ca["country"].nunique() == 41
    assert int(ca["negative_is_copy"].sum()) == 2247
    one_per_country = ca.drop_duplicates("country")
    inst = expand.expand(one_per_country, seed=5)
    assert len(inst) == 41 * 48
    assert inst["actor_country"].notna().all()
    assert np.isin(inst["receiver_region"], geography.REGIONS).all()


def test_cultureatlas_release_layout(tmp_path):
    p = tmp_path / "release.csv"
    pd.DataFrame({"Assertion": ["In Peru people greet everyone."], "Context1": ["c"], "Country": ["Peru"],
                  "Titile": ["Peruvian greetings"], "Url": ["u"]}).to_csv(p, index=False)
    ca = ingest.load_cultureatlas(p)
    assert ca.loc[0, "keyword"] == "Peruvian greetings" and ca.loc[0, "negative_sample"] == ""
