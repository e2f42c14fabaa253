import numpy as np
import pandas as pd

from cultalign.personas.human import JohnsonLayout, load_key, read_johnson, score_domains, synthesize_johnson

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
