"""The personas annotation claims (Figure 2 agreement, Figure 4 OEG human correlation) against the
tables the metrics step writes: not computable, with the reason, when no annotation file is
configured; evaluated when fake annotation files (written here) are given."""

from pathlib import Path

import numpy as np
import pandas as pd

from cultalign.claims import evaluate, load_claims
from cultalign.personas.metrics import annotation_agreement, oeg_human_correlation

ROOT = Path(__file__).resolve().parents[2]
COUNTRIES = ["usa", "brazil", "india", "southafrica", "saudiarabia", "japan"]
TABLES = "results/personas/tables"


def _annotation_claims():
    claims = [c for c in load_claims(ROOT / "config/claims.yaml")
              if c["id"].startswith(("personas.fig2.", "personas.fig4."))]
    assert len(claims) == 13
    return claims


def _write(base, name, df):
    p = base / TABLES / f"{name}.tsv"
    p.parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(p, sep="\t", index=False)


def test_without_annotation_files_not_computable_with_reason(tmp_path):
    _write(tmp_path, "annotation_agreement", annotation_agreement(None))
    _write(tmp_path, "oeg_human_correlation", oeg_human_correlation(pd.DataFrame(), None))
    t = evaluate(_annotation_claims(), ["personas"], scale="paper", base=tmp_path).set_index("id")
    assert set(t["status"]) == {"not computable"}
    assert "personas.annotations.validation" in t.loc["personas.fig2.norm_relevance_agreement.japan", "reason"]
    assert "personas.annotations.oeg_scores" in t.loc["personas.fig4.oeg_human_r.usa", "reason"]


def test_with_fake_annotation_files_claims_are_evaluated(tmp_path):
    # fake validation annotations: 20 norms per country, two annotators; Japan disagrees on 4 of 20
    rows = []
    for c in COUNTRIES:
        for u in range(20):
            a = "yes" if u % 3 else "no"
            b = ("no" if a == "yes" else "yes") if (c == "japan" and u < 4) else a
            rows += [(c, "norm_relevance", f"n{u}", "a1", a), (c, "norm_relevance", f"n{u}", "a2", b)]
    val = tmp_path / "fake_validation.tsv"
    pd.DataFrame(rows, columns=["country", "task", "unit", "annotator", "label"]).to_csv(val, sep="\t", index=False)
    # fake OEG ratings: 90 responses per country (540 in all); human = auto + noise
    rng = np.random.default_rng(0)
    resp, ann = [], []
    for c in COUNTRIES:
        auto = rng.uniform(1, 5, 90)
        noise = 0.9 if c != "india" else 3.0  # India: weak agreement
        for k, x in enumerate(auto):
            key = {"instrument": "cp", "item_id": f"{k:04d}", "country": c, "model": "m", "priming": "primed"}
            resp.append({**key, "expected_score": x})
            ann.append({**key, "human_score": float(np.clip(x + rng.normal(0, noise), 1, 5))})
    oeg = tmp_path / "fake_oeg_scores.tsv"
    pd.DataFrame(ann).to_csv(oeg, sep="\t", index=False)
    _write(tmp_path, "annotation_agreement", annotation_agreement(str(val)))
    corr = oeg_human_correlation(pd.DataFrame(resp), str(oeg))
    _write(tmp_path, "oeg_human_correlation", corr)
    t = evaluate(_annotation_claims(), ["personas"], scale="paper", base=tmp_path).set_index("id")
    assert t.loc["personas.fig2.norm_relevance_agreement.usa", "status"] == "reproduced"
    assert t.loc["personas.fig2.norm_relevance_agreement.japan", "reproduced_value"] == 0.8
    assert t.loc["personas.fig2.norm_relevance_agreement.japan", "status"] == "differs"
    assert t.loc["personas.fig4.oeg_annotated_generations", "status"] == "reproduced"
    r = corr.set_index("country")["pearson_r"]
    for c in COUNTRIES:
        want = "reproduced" if 0.61 <= r[c] <= 0.73 else "differs"
        assert t.loc[f"personas.fig4.oeg_human_r.{c}", "status"] == want
    assert t.loc["personas.fig4.oeg_human_r.india", "status"] == "differs"
