"""The errata page as findings (src/cultalign/findings.py): each statement of a paper once with the checks
that bear on it, one status, coverage checks apart, text-vs-code disagreements as findings."""

from __future__ import annotations

import pandas as pd
import pytest
import yaml

from cultalign import findings as fd
from cultalign import text_vs_code as tvc
from cultalign.claims import evaluate, load_claims

COLUMNS = {"r.tsv:value": "count"}


def _claims(tmp_path, entries, findings=None):
    p = tmp_path / "claims.yaml"
    extra = {"findings": findings} if findings else {}
    p.write_text(yaml.safe_dump({"columns": COLUMNS, "claims": entries, **extra}))
    return p, load_claims(p)


def _check(id_, check, paper="monopolet", **kw):
    entry = {"id": id_, "kind": "consistency", "paper": paper, "place": "A.2", "statement": f"statement {id_}",
             "check": check, **kw}
    return entry if check else {k: v for k, v in entry.items() if k != "check"}


def _derived(rule, key, status, coverage="", paper="monopolet"):
    return {"rule": rule, "paper": paper, "key": key, "place": "A.2", "claim": "", "status": status,
            "holds": status == "holds", "coverage": coverage, "arithmetic": f"{rule} arithmetic"}


def test_one_finding_per_statement_with_every_check_and_one_status(tmp_path):
    """The same 74/300 arithmetic as a consistency claim and a derived check is one finding, conditional
    in both; a group whose checks partly hold lists them; an ungrouped failing check is its own finding."""
    groups = {"monopolet.finding.share": {"statement": "74 of 300 printed as 24%",
                                          "checks": ["monopolet.share", "derived: percent of counts | *24%*"]},
              "personas.finding.table": {"statement": "Table 2 vs Table 7", "checks": ["personas.t2t7.*"]}}
    path, claims = _claims(tmp_path, [
        {**_check("monopolet.share", ""), "assumption": "rounded or truncated", "resolution": "uses the counts",
         "readings": {"rounded": "round(100 * 74 / 300) == 24", "truncated": "int(100 * 74 / 300) == 24"}},
        _check("personas.t2t7.a", "1 == 2", paper="personas"), _check("personas.t2t7.b", "2 == 2", paper="personas"),
        _check("personas.t2t7.c", "3 == 2", paper="personas"),
        _check("pact.alone", "2 * 150 == 275", paper="pact"),
    ], groups)
    table = evaluate(claims, ["pact", "personas", "monopolet"], scale="demo", base=tmp_path)
    derived = pd.DataFrame([_derived("percent of counts", "monopolet §A.2 24% #1", "conditional"),
                            _derived("metric bounds", "monopolet §A.2 24% #1", "holds", coverage="own claim")])
    checks = pd.concat([fd.consistency_checks(table, claims), fd.derived_check_rows(derived, {})], ignore_index=True)
    assert fd.load_findings(path) == groups
    e = fd.findings_table(checks, groups).set_index("finding")
    assert list(e.index) == ["monopolet.finding.share", "personas.finding.table", "pact.alone"]
    share = e.loc["monopolet.finding.share"]
    assert share["status"] == "conditional" and share["resolution"] == "uses the counts"
    assert share["kind"] == "paper arithmetic; printed numbers (derived from the inventory)"
    assert share["checks"] == ("monopolet.share (conditional); derived: percent of counts | monopolet §A.2 24% #1 "
                               "(conditional)")
    assert "holds if truncated, not if rounded" in share["evidence"]
    table_row = e.loc["personas.finding.table"]
    assert table_row["status"] == "inconsistent" and table_row["statement"] == "Table 2 vs Table 7"
    assert table_row["checks"].endswith("of the same finding, 1 hold: personas.t2t7.b")
    assert e.loc["pact.alone", "resolution"] == "not recorded"
    assert fd.disagreeing_findings(checks, groups) == [] and fd.unmatched_patterns(checks, groups) == []
    # a group whose checks disagree (one inconsistent, one conditional) is reported: make the readings explicit
    bad = {"monopolet.finding.share": {"statement": "s", "checks": ["monopolet.share", "pact.alone"]}}
    assert fd.disagreeing_findings(checks, bad) == ["monopolet.finding.share: ['conditional', 'does not hold']"]
    assert fd.unmatched_patterns(checks, {"x": {"statement": "s", "checks": ["nope.*"]}}) == ["findings.x: 'nope.*'"]
    with pytest.raises(fd.FindingsError, match="is in findings"):
        fd.group_of(checks, {"a": {"statement": "s", "checks": ["pact.*"]}, "b": {"statement": "s", "checks": ["*"]}})


def test_coverage_checks_are_counted_apart_and_never_findings(tmp_path):
    derived = pd.DataFrame([_derived("metric bounds", "k1", "does not hold", coverage="its own claim's range"),
                            _derived("up to", "k2", "does not hold"), _derived("ranking in words", "k3", "undecided")])
    checks = fd.derived_check_rows(derived, {"up to | k2": "not used"})
    e = fd.findings_table(checks, {})
    assert list(e["finding"]) == ["derived: up to | k2"] and e["resolution"].iloc[0] == "not used"
    s = fd.summary(checks, e).set_index(["kind", "status"])["count"]
    assert s[("checks that could fail (printed numbers (derived from the inventory))", "does not hold")] == 1
    assert s[("checks that could fail (printed numbers (derived from the inventory))", "undecided")] == 1
    assert s[("coverage: checks that cannot fail (metric bounds)", "does not hold")] == 1
    assert s[("findings (printed numbers (derived from the inventory))", "inconsistent")] == 1
    notes = fd.page_notes(checks, e)
    assert notes[0].startswith("1 findings (1 inconsistent; monopolet: 1)")
    assert "2 checks that could have failed (1 does not hold, 1 undecided)" in notes[1]
    assert notes[2].startswith("Coverage, not evidence: 1 checks that could not fail")


def test_each_text_vs_code_row_is_a_finding_with_both_readings(tmp_path):
    """A fake disagreement file (config/text_vs_code/toy.yaml in a tmp folder), evaluated as rule
    text_vs_code does, becomes a finding with both readings, the code cited, the default and both values."""
    entries = tmp_path / "config" / "text_vs_code" / "toy.yaml"
    entries.parent.mkdir(parents=True)
    entries.write_text("authors_code: {repo: owner/name, commit: " + "b" * 40 + "}\n" + """entries:
  - id: toy.agreement
    place: Figure 6B
    topic: Agreement with the majority answer
    text: agreement of each cell, averaged over cells
    code: agreement pooled over all judgments
    code_ref: [scripts/a.py, scripts/b.py]
    default: text
    why: the paper's figure shows the cell means
    key: toy.agreement
    settings: {code: pooled, text: cells}
    values:
      code: {result: results/toy/agree.tsv, column: agreement, where: {how: pooled}}
      text: {result: results/toy/agree.tsv, column: agreement, where: {how: cells}}
  - id: toy.subset
    place: Section 4
    topic: Prompt subset
    text: all prompts
    code: the balance prompt only
    code_ref: scripts/c.py
    default: code
""")
    res = tmp_path / "results" / "toy" / "agree.tsv"
    res.parent.mkdir(parents=True)
    pd.DataFrame({"how": ["pooled", "cells"], "agreement": [0.71, 0.68]}).to_csv(res, sep="\t", index=False)
    table = tvc.evaluate(tvc.load_studies(["toy"], tmp_path), tmp_path)
    (tmp_path / "text_vs_code.tsv").write_text(table.to_csv(sep="\t", index=False))
    read = pd.read_csv(tmp_path / "text_vs_code.tsv", sep="\t", keep_default_na=False)
    checks = fd.text_vs_code_check_rows(read)
    e = fd.findings_table(checks, {}).set_index("finding")
    assert list(e.index) == ["text vs code: toy.agreement", "text vs code: toy.subset"]
    row = e.loc["text vs code: toy.agreement"]
    assert row["status"] == "text and code disagree" and row["kind"] == "paper text vs the authors' code"
    assert row["paper"] == "toy" and row["place"] == "Figure 6B"
    assert "text: agreement of each cell, averaged over cells" in row["evidence"]
    cited = "code (owner/name@bbbbbbb:scripts/a.py; owner/name@bbbbbbb:scripts/b.py): agreement pooled"
    assert cited in row["evidence"]
    assert "values: code 0.71, text 0.68 (both)" in row["evidence"]
    assert row["resolution"] == ("The workflow computes the text reading by default; config toy.agreement: code = "
                                 "pooled, text = cells. the paper's figure shows the cell means")
    sub = e.loc["text vs code: toy.subset"]
    assert "values: code -, text - (neither (not computed))" in sub["evidence"]
    assert sub["resolution"].startswith("The workflow computes the code reading by default; no config key")
    # a job that has the table only for its declared inputs: a value of another table is "not made by this run"
    only = tvc.evaluate(tvc.load_studies(["toy"], tmp_path), tmp_path, tables=set()).iloc[0]
    assert only["computed"].startswith("neither (results/toy/agree.tsv not made by this run")


def test_a_value_claim_on_released_data_that_differs_is_a_finding(tmp_path):
    pd.DataFrame({"quantity": ["bfi_c"], "value": [9]}).to_csv(tmp_path / "r.tsv", sep="\t", index=False)
    value = {"id": "personas.real.bfi_c", "paper": "personas", "place": "Table 5", "statement": "8 C items",
             "value": 8, "unit": "count", "tolerance": 0, "basis": "exact", "result": "r.tsv", "column": "value",
             "where": {"quantity": "bfi_c"}, "scale": "any", "needs": "real_data.x"}
    _, claims = _claims(tmp_path, [value])
    table = evaluate(claims, ["personas"], scale="demo", base=tmp_path, needs_set={"real_data.x": True})
    checks = fd.consistency_checks(table, claims)
    assert checks[["check", "source", "status"]].values.tolist() == [
        ["personas.real.bfi_c", "released data", "does not hold"]]
    assert "the paper states 8; the data give 9" in checks["arithmetic"].iloc[0]
    assert fd.findings_table(checks, {})["kind"].tolist() == ["paper vs a released data file"]


def test_bad_findings_section(tmp_path):
    for spec, msg in (({"statement": "s"}, "needs statement and checks"), ({"checks": ["a"]}, "needs statement"),
                      ({"statement": "s", "checks": ["a"], "colour": 1}, "unknown key")):
        p = tmp_path / "c.yaml"
        p.write_text(yaml.safe_dump({"findings": {"f": spec}}))
        with pytest.raises(fd.FindingsError, match=msg):
            fd.load_findings(p)
