import json

import pytest

from cultalign.personas.instruments import BFI44_KEY, InstrumentError, load_instrument, trait_counts

ROOT = __import__("pathlib").Path(__file__).resolve().parents[2]
DEMO = ROOT / "resources/demo/personas/instruments"


def test_published_bfi_key_counts():
    counts = {t: sum(1 for v in BFI44_KEY.values() if v[0] == t) for t in "OCEAN"}
    assert counts == {"O": 10, "C": 9, "E": 8, "A": 9, "N": 8}
    assert sum(v[1] for v in BFI44_KEY.values()) == 16  # 16 reverse-keyed items


def test_demo_instruments_load_and_score():
    lik = load_instrument("likert_tsv", DEMO / "demo_likert.tsv", "demo-likert")
    assert trait_counts(lik) == {t: 2 for t in "OCEAN"}
    minus = lik[lik["keyed"] == "minus"].iloc[0]
    assert json.loads(minus["scores"]) == [5, 4, 3, 2, 1]
    b5 = load_instrument("big5chat", DEMO / "demo_big5chat.csv", "demo-big5chat")
    assert json.loads(b5["scores"].iloc[0]) == [5, 1] and len(b5) == 5
    tr = load_instrument("trait", DEMO / "demo_trait.csv", "demo-trait")
    assert json.loads(tr["scores"].iloc[0]) == [5, 5, 1, 1]


def test_bad_row_names_file_row_field(tmp_path):
    p = tmp_path / "bad.tsv"
    p.write_text("item_id\ttext\ttrait\tkeyed\nx1\tlike parties\tE\tplus\nx2\tworry\tZ\tplus\n")
    with pytest.raises(InstrumentError, match=r"bad.tsv, line 3, field 'trait'"):
        load_instrument("likert_tsv", p, "x")


def test_real_baselines(shared_data):
    base = shared_data / "culturalpersonas/datasets/baselines"
    bfi = load_instrument("bfi", base / "bfi.csv", "bfi44", "published")
    assert trait_counts(bfi) == {"O": 10, "C": 9, "E": 8, "A": 9, "N": 8}
    ipip120 = load_instrument("ipip_csv", base / "ipip-120.csv", "ipip120")
    assert trait_counts(ipip120) == {t: 24 for t in "OCEAN"}
    ipip300 = load_instrument("ipip_csv", base / "ipip-300.csv", "ipip300")
    assert trait_counts(ipip300) == {t: 60 for t in "OCEAN"}
    ref = load_instrument("ipip_json", shared_data / "ipip_items/ipip_neo_120_items_alheimsins_en.json", "ref")
    assert (ref["keyed"].to_numpy() == ipip120["keyed"].to_numpy()).all()
    b5 = load_instrument("big5chat", base / "big5chat.csv", "big5chat")
    assert trait_counts(b5) == {"O": 106, "C": 97, "E": 99, "A": 98, "N": 100}


# -- TRAIT ------------------------------------------------------------------------------------
# Fake TRAIT files written by the tests, in the layouts of the three released forms.
_FAKE_OPTS = ["Join the group and ask questions.", "Try the new activity right away.",
              "Stay with what I know.", "Leave it for another day."]


def _fake_trait_csv(path, rows):
    """CulturalPersonas' datasets/baselines/trait.csv layout (pandas index column first)."""
    import csv

    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["", "idx", "split", "trait", "statement", "situation", "query", "response_high1",
                    "response_high2", "response_low1", "response_low2"])
        for k, (trait, situation, query, opts) in enumerate(rows):
            w.writerow([k, k, "good", trait, "A statement.", situation, query, *opts])


def test_trait_csv_layout_loads_with_scores(tmp_path):
    p = tmp_path / "fake_trait.csv"
    _fake_trait_csv(p, [("Openness", "A friend invites me to a new exhibit, with music.", "What do I do?", _FAKE_OPTS),
                        ("Neuroticism", "My train is late again.", "How do I feel?", _FAKE_OPTS[::-1])])
    items = load_instrument("trait", p, "trait")
    assert list(items["trait"]) == ["O", "N"] and list(items["item_id"]) == ["0000", "0001"]
    assert json.loads(items["options"].iloc[1]) == _FAKE_OPTS[::-1]  # canonical order high1, high2, low1, low2
    assert json.loads(items["scores"].iloc[0]) == [5, 5, 1, 1]
    assert items["context"].iloc[0] == "A friend invites me to a new exhibit, with music."
    assert items["question"].iloc[0] == "What do I do?" and set(items["format"]) == {"choice"}


def test_trait_json_layout_excludes_dark_triad_with_count(tmp_path):
    p = tmp_path / "fake_TRAIT.json"
    recs = [{"personality": t, "situation": "At work, a colleague asks for help.", "query": "What should I do?",
             **dict(zip(("response_high1", "response_high2", "response_low1", "response_low2"), _FAKE_OPTS))}
            for t in ("Agreeableness", "Narcissism", "Psychopathy", "Narcissism", "Extraversion")]
    p.write_text(json.dumps(recs))
    items = load_instrument("trait", p, "trait-json")
    assert list(items["trait"]) == ["A", "E"] and set(items["instrument"]) == {"trait-json"}
    assert items.attrs["excluded"] == {"Narcissism": 2, "Psychopathy": 1}
    from cultalign.personas.instruments import load_trait

    with pytest.raises(InstrumentError, match=r"fake_TRAIT.json, field 'trait': record 2: unknown trait"):
        load_trait(p, dark_triad="error")


def test_trait_hub_layout_question_only(tmp_path):
    p = tmp_path / "fake_trait_hub.jsonl"
    rec = {"personality": "Conscientiousness", "question": "My report is due Friday. How do I plan the week?",
           **dict(zip(("response_high1", "response_high2", "response_low1", "response_low2"), _FAKE_OPTS))}
    p.write_text(json.dumps(rec) + "\n")
    items = load_instrument("trait", p, "trait")
    assert items["context"].iloc[0] == "" and items["question"].iloc[0].startswith("My report is due")
    assert list(items["trait"]) == ["C"]


@pytest.mark.parametrize("mutate, match", [
    (lambda r: r.__setitem__(3, "Stubbornness"), r"line 3, field 'trait': unknown trait label"),
    (lambda r: r.__setitem__(9, " "), r"line 3, field 'response_low1': empty value"),
    (lambda r: r.__setitem__(5, ""), r"line 3, field 'situation': empty value"),
    (lambda r: r.__setitem__(1, "0"), r"line 3, field 'idx': '0000' repeats the item of line 2"),
    (lambda r: r.__setitem__(8, r[7]), r"line 3: fields .*two options are identical"),
])
def test_trait_bad_rows_name_file_row_field(tmp_path, mutate, match):
    import csv

    p = tmp_path / "fake_trait_bad.csv"
    _fake_trait_csv(p, [("Openness", "S one.", "Q one?", _FAKE_OPTS), ("Openness", "S two.", "Q two?", _FAKE_OPTS)])
    rows = list(csv.reader(open(p)))
    mutate(rows[2])
    with open(p, "w", newline="") as f:
        csv.writer(f).writerows(rows)
    with pytest.raises(InstrumentError, match="fake_trait_bad.csv, " + match):
        load_instrument("trait", p, "trait")


def test_trait_missing_column_named(tmp_path):
    p = tmp_path / "fake_trait_cols.csv"
    p.write_text("trait,situation,query,response_high1,response_high2,response_low1\nOpenness,s,q,a,b,c\n")
    with pytest.raises(InstrumentError, match=r"fake_trait_cols.csv, line 1, field 'response_low2': missing column"):
        load_instrument("trait", p, "trait")


def test_trait_native_scoring():
    import pandas as pd

    from cultalign.personas.instruments import trait_native_scores

    s = json.dumps([5, 5, 1, 1])
    probs = pd.DataFrame({"trait": ["O", "O", "O", "N", "N"], "scores": [s] * 5, "valid": [True] * 4 + [False],
                          "probs": [json.dumps(p) for p in ([0.1, 0.5, 0.2, 0.2], [0.3, 0.0, 0.3, 0.4],
                                                            [0.25, 0.25, 0.25, 0.25], [0.0, 0.1, 0.9, 0.0],
                                                            [1.0, 0.0, 0.0, 0.0])]})
    out = pd.DataFrame(trait_native_scores(probs)).set_index("trait")
    # O: argmax high, low (0.4 on low2), high (tie -> first option, high1) -> 2 of 3 items
    assert out.loc["O", "n_items"] == 3 and out.loc["O", "trait_score_pct"] == pytest.approx(200 / 3)
    assert out.loc["O", "mean_p_high"] == pytest.approx((0.6 + 0.3 + 0.5) / 3)
    assert out.loc["O", "expected_likert"] == pytest.approx(1 + 4 * (0.6 + 0.3 + 0.5) / 3)
    # N: the invalid item is left out
    assert out.loc["N", "n_items"] == 1 and out.loc["N", "trait_score_pct"] == 0.0
    assert "C" not in out.index


def test_trait_native_table_over_mcs_item_files(tmp_path):
    import pandas as pd

    from cultalign.personas.instruments import InstrumentError, trait_native_table

    s = json.dumps([5, 5, 1, 1])
    rows = [("O", [0.7, 0.1, 0.1, 0.1], True), ("O", [0.1, 0.1, 0.7, 0.1], True),
            ("N", [0.25] * 4, False), ("N", [0.25] * 4, False)]
    df = pd.DataFrame([{"country": "japan", "priming": "primed", "instrument": "trait", "item_id": f"{i:04d}",
                        "trait": t, "probs": json.dumps(p), "scores": s, "valid": v}
                       for i, (t, p, v) in enumerate(rows)])
    f = tmp_path / "japan_primed.items.tsv"
    df.to_csv(f, sep="\t", index=False)
    out = trait_native_table([("m1", f)]).set_index("trait")
    assert list(out["model"]) == ["m1", "m1"] and set(out["instrument"]) == {"trait"}
    assert out.loc["O", "n_items"] == 2 and out.loc["O", "n_invalid"] == 0
    assert out.loc["O", "trait_score_pct"] == pytest.approx(50.0)
    # every N item was invalid: the row stays, with no score and both items counted
    assert out.loc["N", "n_items"] == 0 and out.loc["N", "n_invalid"] == 2
    assert pd.isna(out.loc["N", "trait_score_pct"])
    df.drop(columns="valid").to_csv(f, sep="\t", index=False)
    with pytest.raises(InstrumentError, match=r"japan_primed.items.tsv: missing column\(s\) \['valid'\]"):
        trait_native_table([("m1", f)])
