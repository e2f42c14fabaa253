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
    with pytest.raises(InstrumentError, match=r"bad.tsv: row 2: field 'trait'"):
        load_instrument("likert_tsv", p, "x")


def test_real_baselines(shared_data):
    base = shared_data / "culturalpersonas/datasets/baselines"
    bfi = load_instrument("bfi", base / "bfi.csv", "bfi44")
    assert trait_counts(bfi) == {"O": 10, "C": 9, "E": 8, "A": 9, "N": 8}
    ipip120 = load_instrument("ipip_csv", base / "ipip-120.csv", "ipip120")
    assert trait_counts(ipip120) == {t: 24 for t in "OCEAN"}
    ipip300 = load_instrument("ipip_csv", base / "ipip-300.csv", "ipip300")
    assert trait_counts(ipip300) == {t: 60 for t in "OCEAN"}
    ref = load_instrument("ipip_json", shared_data / "ipip_items/ipip_neo_120_items_alheimsins_en.json", "ref")
    assert (ref["keyed"].to_numpy() == ipip120["keyed"].to_numpy()).all()
    b5 = load_instrument("big5chat", base / "big5chat.csv", "big5chat")
    assert trait_counts(b5) == {"O": 106, "C": 97, "E": 99, "A": 98, "N": 100}
