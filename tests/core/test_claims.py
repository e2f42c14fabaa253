from pathlib import Path

import pandas as pd
import pytest
import yaml

from cultalign.claims import ClaimsError, evaluate, load_claims

ROOT = Path(__file__).resolve().parents[2]


def _claims(tmp_path, entries):
    p = tmp_path / "claims.yaml"
    p.write_text(yaml.safe_dump({"claims": entries}))
    return load_claims(p)


def _c(id_, **kw):
    base = {"id": id_, "paper": "pact", "place": "Sec. 3", "statement": "s", "value": 10, "result": "r.tsv",
            "column": "value", "where": {"quantity": "n"}, "scale": "demo"}
    base.update(kw)
    return base


def test_statuses(tmp_path):
    pd.DataFrame({"quantity": ["n", "m", "dup", "dup", "nan"], "value": [10.4, 3, 1, 1, None]}).to_csv(
        tmp_path / "r.tsv", sep="\t", index=False)
    claims = _claims(tmp_path, [
        _c("ok", tolerance=0.5),
        _c("off", where={"quantity": "m"}, tolerance=0.5),
        _c("rel", value=3.1, where={"quantity": "m"}, rel_tolerance=0.05),
        _c("paper_only", scale="paper"),
        _c("other_study", paper="monopolet"),
        _c("not_produced", result="missing.tsv"),
        _c("ambiguous", where={"quantity": "dup"}),
        _c("nan", where={"quantity": "nan"}),
    ])
    t = evaluate(claims, ["pact"], scale="demo", base=tmp_path).set_index("id")
    assert t.loc["ok", "status"] == "reproduced" and t.loc["ok", "reproduced_value"] == 10.4
    assert t.loc["off", "status"] == "differs"
    assert t.loc["rel", "status"] == "reproduced"
    assert t.loc["paper_only", "status"] == "not computable"
    assert "paper-scale inputs" in t.loc["paper_only", "reason"]
    assert t.loc["paper_only", "reproduced_value"] == 10.4  # still shown
    assert "not in config 'studies'" in t.loc["other_study", "reason"]
    assert "was not produced" in t.loc["not_produced", "reason"]
    assert "2 rows match" in t.loc["ambiguous", "reason"]
    assert "NaN" in t.loc["nan", "reason"]
    t2 = evaluate(claims, ["pact"], scale="paper", base=tmp_path).set_index("id")
    assert t2.loc["paper_only", "status"] == "differs"


def test_bad_claims_file(tmp_path):
    with pytest.raises(ClaimsError, match="lacks"):
        _claims(tmp_path, [{"id": "x", "paper": "pact"}])
    with pytest.raises(ClaimsError, match="duplicate"):
        _claims(tmp_path, [_c("a"), _c("a")])


def test_project_claims_file_is_well_formed():
    claims = load_claims(ROOT / "config" / "claims.yaml")
    assert all(c["paper"] in ("pact", "personas", "monopolet") for c in claims)
    assert all(c["result"].startswith(f"results/{c['paper']}/") for c in claims)
