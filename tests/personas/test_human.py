import numpy as np
import pandas as pd
import pytest

from cultalign.personas.human import (JohnsonLayout, keying_check, load_key, read_johnson, score_domains,
                                      synthesize_johnson)

ROOT = __import__("pathlib").Path(__file__).resolve().parents[2]
KEY = ROOT / "resources/demo/personas/ipip120_synthetic_key.tsv"


def test_synthetic_roundtrip_counts_and_means(tmp_path):
    key = load_key(KEY)
    assert len(key) == 120 and key["minus"].sum() == 40
    layout = JohnsonLayout()
    dat = tmp_path / "IPIP120_SYNTHETIC.dat"
    means = synthesize_johnson(dat, key, {"Japan": 400, "South Afr": 300}, 7, layout, {"Germany": 50})
    raw = dat.read_bytes().split(b"\r\n")
    assert len(raw[0]) == 151 and raw[-1] == b""  # Johnson's record width + CRLF
    recs, stats = read_johnson(dat, layout, {"japan": "Japan", "southafrica": "South Afr"})
    assert stats == {"lines": 750, "malformed": 0}
    assert recs["country"].value_counts().to_dict() == {"japan": 400, "southafrica": 300}
    scores = score_domains(recs, key)
    # ~1% missing answers -> some domains unscored, counted as NaN, not imputed
    assert scores["O"].isna().sum() > 0
    got = scores[scores["country"] == "japan"][list("OCEAN")].mean()
    want = means[means["johnson_country"] == "Japan"][list("OCEAN")].iloc[0]
    # correct reverse keying recovers the generating means (wrong keying would pull them towards 3)
    assert np.allclose(got.to_numpy(), want.to_numpy(), atol=0.25), (got, want)


def test_reverse_keying_matters(tmp_path):
    key = pd.DataFrame({"position": [1, 2], "trait": ["O", "O"], "minus": [False, True]})
    recs = pd.DataFrame({"country": ["x"], "case": ["1"], "i1": [5], "i2": [1]})
    assert score_domains(recs, key)["O"].iloc[0] == 5.0


def test_malformed_lines_counted(tmp_path):
    p = tmp_path / "bad.dat"
    good = "     11200000012010199" + "Japan    " + "3" * 120
    p.write_text(good + "\r\n" + "short line\r\n" + good[:-1] + "x\r\n", newline="")
    recs, stats = read_johnson(p, JohnsonLayout(), {"japan": "Japan"})
    assert len(recs) == 1 and stats["malformed"] == 2


def _key300():
    traits = [("N", "E", "O", "A", "C")[k % 5] for k in range(300)]
    return pd.DataFrame({"position": range(1, 301), "trait": traits, "minus": [k % 3 == 2 for k in range(300)]})


def test_ipip300_layout_full_names_and_stored_reversed_roundtrip(tmp_path):
    """IPIP300.dat layout (10-character COUNTRY, items from column 34, 333 characters) with minus-keyed
    items stored reverse-scored: read with full country names, scored without reversing, checked."""
    key, layout = _key300(), JohnsonLayout.for_form("ipip300")
    assert (layout.width, layout.country_width, layout.items_start) == (333, 10, 34)
    dat = tmp_path / "IPIP300_SYNTHETIC.dat"
    means = synthesize_johnson(dat, key, {"South Africa": 300, "Saudi Arabia": 200}, 5, layout, {"Germany": 30},
                               stored_reversed=True)
    first = dat.read_bytes().split(b"\r\n")[0]
    assert len(first) == 333 and first[22:32] == b"South Afri" and first[32:33] == b" "
    recs, stats = read_johnson(dat, layout, {"southafrica": "South Africa", "saudiarabia": "Saudi Arabia"})
    assert stats["malformed"] == 0 and recs["country"].value_counts().to_dict() == {"southafrica": 300,
                                                                                  "saudiarabia": 200}
    assert keying_check(recs, key, stored_reversed=True)["consistent"] is True
    assert keying_check(recs, key, stored_reversed=False)["consistent"] is False  # double reversal detected
    got = score_domains(recs, key, stored_reversed=True)
    got = got[got["country"] == "southafrica"][list("OCEAN")].mean()
    want = means[means["johnson_country"] == "South Africa"][list("OCEAN")].iloc[0]
    assert np.allclose(got.to_numpy(), want.to_numpy(), atol=0.25), (got, want)
    # the 120-item layout cuts the same names to 9 characters
    assert JohnsonLayout.for_form("ipip120").width == 151


def test_layout_overrides_are_checked():
    assert JohnsonLayout.for_form("ipip300", 9).country_width == 9
    with pytest.raises(ValueError, match="overlaps"):
        JohnsonLayout.for_form("ipip120", 12)
    with pytest.raises(ValueError, match="unknown Johnson form"):
        JohnsonLayout.for_form("ipip60")


@pytest.mark.realdata
def test_scoring_key_csvs_in_johnson_order(shared_data):
    """The release's IPIP-300 scoring-tool CSV (Full# order, Sign) and IPIP-120 CSV (Key, Reverse) as keys."""
    import json

    base = shared_data / "culturalpersonas" / "datasets" / "baselines"
    k300 = load_key(base / "ipip-300.csv")
    assert len(k300) == 300 and k300["trait"].value_counts().to_dict() == {t: 60 for t in "NEOAC"}
    auto = pd.read_csv(shared_data / "ipip_items" / "ipip_neo_300_scoring_key_automoto.csv").sort_values(
        "full_position")
    assert list(k300["minus"]) == [s.strip().startswith("-") for s in auto["sign"]]
    k120 = load_key(base / "ipip-120.csv")
    alh = json.loads((shared_data / "ipip_items" / "ipip_neo_120_items_alheimsins_en.json").read_text())
    assert list(k120["trait"]) == [r["domain"] for r in alh]
    assert list(k120["minus"]) == [r["keyed"] == "minus" for r in alh]


def test_key_csv_bad_row_names_file_and_row(tmp_path):
    p = tmp_path / "key.csv"
    p.write_text("Full#,Sign\n1,+N1\n2,N2\n")
    with pytest.raises(ValueError, match=r"key\.csv, line 3: expected a sign"):
        load_key(p)
