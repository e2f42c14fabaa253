from pathlib import Path

import pandas as pd
import pytest
import yaml

from cultalign.claims import (
    ClaimsError,
    arithmetic,
    band_problems,
    claim_result_files,
    convert,
    evaluate,
    load_claims,
)

ROOT = Path(__file__).resolve().parents[2]
COLUMNS = {"r.tsv:value": "count", "r.tsv:rate": "fraction", "r.tsv:gap": "fraction difference",
           "r.tsv:mixed": "mixed"}


def _claims(tmp_path, entries, columns=None):
    p = tmp_path / "claims.yaml"
    p.write_text(yaml.safe_dump({"columns": COLUMNS if columns is None else columns, "claims": entries}))
    return load_claims(p)


def _c(id_, **kw):
    base = {"id": id_, "paper": "pact", "place": "Sec. 3", "statement": "s", "value": 10, "unit": "count",
            "basis": "rounding", "result": "r.tsv", "column": "value", "where": {"quantity": "n"}, "scale": "demo"}
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
    ], columns={**COLUMNS, "missing.tsv:value": "count"})
    t = evaluate(claims, ["pact"], scale="demo", base=tmp_path).set_index("id")
    assert t.loc["ok", "status"] == "reproduced" and t.loc["ok", "reproduced_value"] == 10.4
    assert t.loc["off", "status"] == "differs"
    assert "outside [9.5, 10.5]" in t.loc["off", "reason"]
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


def test_units_are_converted_never_compared_raw(tmp_path):
    pd.DataFrame({"quantity": ["n"], "rate": [0.395], "gap": [0.12], "value": [1]}).to_csv(
        tmp_path / "r.tsv", sep="\t", index=False)
    claims = _claims(tmp_path, [
        _c("pct", value=39.5, unit="percent", tolerance=0.05, column="rate"),
        _c("frac", value=0.395, unit="fraction", tolerance=0.0005, column="rate"),
        _c("pp", value=12.0, unit="percentage points", tolerance=0.05, column="gap"),
        _c("pct_wrong", value=0.395, unit="percent", tolerance=0.0005, column="rate"),  # a fraction typed as percent
    ])
    t = evaluate(claims, ["pact"], scale="demo", base=tmp_path).set_index("id")
    assert t.loc["pct", "status"] == "reproduced" and t.loc["pct", "reproduced_value"] == pytest.approx(39.5)
    assert t.loc["frac", "status"] == "reproduced"
    assert t.loc["pp", "status"] == "reproduced" and t.loc["pp", "reproduced_value"] == pytest.approx(12.0)
    assert t.loc["pct_wrong", "status"] == "differs"
    assert convert(0.5, "fraction", "percent") == 50
    with pytest.raises(ClaimsError, match="cannot convert"):
        convert(1, "fraction", "percentage points")  # a share is not a difference of shares
    with pytest.raises(ClaimsError, match="cannot convert"):
        _claims(tmp_path, [_c("x", unit="percent", column="value")])  # a count is not a percent
    with pytest.raises(ClaimsError, match="no unit for result column"):
        _claims(tmp_path, [_c("x", column="other")])
    with pytest.raises(ClaimsError, match="mixed units"):
        _claims(tmp_path, [_c("x", column="mixed")])
    with pytest.raises(ClaimsError, match="unknown unit"):
        _claims(tmp_path, [_c("x", unit="percents")])


def test_sign_is_checked_for_signed_quantities(tmp_path):
    pd.DataFrame({"quantity": ["a", "b"], "gap": [-0.01, 0.01]}).to_csv(tmp_path / "r.tsv", sep="\t", index=False)
    claims = _claims(tmp_path, [
        # a too-wide band (rejected by band_problems) still cannot pass a value of the opposite sign
        _c("neg", value=0.01, unit="fraction difference", tolerance=0.05, column="gap", where={"quantity": "a"}),
        _c("pos", value=0.01, unit="fraction difference", tolerance=0.005, column="gap", where={"quantity": "b"}),
    ])
    t = evaluate(claims, ["pact"], scale="demo", base=tmp_path).set_index("id")
    assert t.loc["neg", "status"] == "differs" and "opposite sign" in t.loc["neg", "reason"]
    assert t.loc["pos", "status"] == "reproduced"


def test_band_problems():
    assert band_problems(_c("a", value=0.43, tolerance=0.5))  # admits zero
    assert band_problems(_c("b", value=-3.9, tolerance=2.0))  # +-51%
    assert band_problems(_c("c", value=4.0, rel_tolerance=0.5, basis="sampling", basis_note="n"))
    assert not band_problems(_c("c2", value=1, tolerance=0.5))  # "1%" stated to the unit: [0.5, 1.5]
    assert band_problems(_c("c3", value=1, tolerance=0.6))
    assert band_problems(_c("d", value=5, tolerance=1, basis="exact"))
    assert band_problems(_c("e", value=5, tolerance=1, basis="sampling"))  # no note on how it was sized
    assert not band_problems(_c("f", value=0.43, tolerance=0.15, basis="sampling", basis_note="2 SE"))
    assert not band_problems(_c("g", value=0, tolerance=0.1))


def test_a_claim_on_a_logprob_column_needs_a_sampling_band(tmp_path):
    """Option log-probabilities move by up to 2.6e-5 nats with the batch size (docs/reliability.md):
    a rounding or exact band, which presumes the value comes back exactly, is refused there."""
    p = tmp_path / "claims.yaml"
    claims = [_c("rounded", value=20.0, tolerance=0.05, unit="percent", column="gain"),
              _c("sampled", value=20.0, tolerance=3.0, unit="percent", column="gain", basis="sampling",
                 basis_note="chosen"),
              _c("elsewhere", value=20.0, tolerance=0.05, unit="percent", column="rate")]
    columns = {"r.tsv:gain": "percent", "r.tsv:rate": "percent"}
    p.write_text(yaml.safe_dump({"columns": columns, "logprob_columns": ["r.tsv:gain"], "claims": claims}))
    problems = {c["id"]: band_problems(c) for c in load_claims(p)}
    assert len(problems["rounded"]) == 1 and "log-probabilities" in problems["rounded"][0]
    assert problems["sampled"] == [] and problems["elsewhere"] == []
    p.write_text(yaml.safe_dump({"columns": columns, "logprob_columns": ["r.tsv:nope"], "claims": claims}))
    with pytest.raises(ClaimsError, match=r"logprob_columns \['r.tsv:nope'\] are not in section `columns`"):
        load_claims(p)


def test_project_claims_on_logprob_columns_are_marked():
    marked = [c for c in load_claims(ROOT / "config" / "claims.yaml") if c.get("from_logprobs")]
    assert {c["result"] for c in marked} == {"results/personas/tables/table2_gains.tsv",
                                             "results/personas/tables/table6_mcs_trait_gains.tsv"}


def test_no_project_claim_admits_zero_or_the_opposite_sign():
    bad = {c["id"]: band_problems(c) for c in load_claims(ROOT / "config" / "claims.yaml")}
    bad = {k: v for k, v in bad.items() if v}
    assert not bad, bad


def test_consistency_claims(tmp_path):
    pd.DataFrame({"quantity": ["n"], "value": [4098]}).to_csv(tmp_path / "r.tsv", sep="\t", index=False)
    claims = _claims(tmp_path, [
        _c("judgments", value=4098, tolerance=0),
        {"id": "design", "kind": "consistency", "paper": "pact", "place": "5.1", "statement": "s", "unit": "count",
         "check": "200 * 7 * 2 == paper('judgments')"},
        {"id": "from_run", "kind": "consistency", "paper": "pact", "place": "5.1", "statement": "s",
         "check": "computed('judgments') == paper('judgments')"},
        {"id": "wilcoxon", "kind": "consistency", "paper": "personas", "place": "Fig. 6", "statement": "s",
         "check": "wilcoxon_min_p(5) < 0.01"},
        {"id": "mean", "kind": "consistency", "paper": "personas", "place": "T2", "statement": "s",
         "check": "approx(round(mean([19.9, 19.8, 31.3, 2.4, 22.2]), 1), 19.1, 0.05)"},
    ])
    t = evaluate(claims, ["pact"], scale="demo", base=tmp_path).set_index("id")
    assert t.loc["design", "status"] == "inconsistent"
    assert t.loc["design", "reason"] == "200 * 7 * 2 = 2800 == paper('judgments') = 4098 -> does not hold"
    assert t.loc["from_run", "status"] == "consistent"
    assert t.loc["wilcoxon", "status"] == "inconsistent" and "0.0625" in t.loc["wilcoxon", "reason"]
    assert t.loc["mean", "status"] == "consistent"
    # a computed value from a run that cannot compare (demo scale claim of paper scale) is not used
    claims[0]["scale"] = "paper"
    t = evaluate(claims, ["pact"], scale="demo", base=tmp_path).set_index("id")
    assert t.loc["from_run", "status"] == "not computable"
    assert t.loc["design", "status"] == "inconsistent"  # paper values only: computable anywhere
    holds, shown = arithmetic("2 * 150 - 25 == 240 + 60", {}, {})
    assert not holds and shown == "2 * 150 - 25 = 275 == 240 + 60 = 300 -> does not hold"


def test_bad_consistency_checks(tmp_path):
    def cons(check):
        return {"id": "k", "kind": "consistency", "paper": "pact", "place": "p", "statement": "s", "check": check}
    with pytest.raises(ClaimsError, match="not a value claim"):
        _claims(tmp_path, [cons("paper('nope') == 1")])
    with pytest.raises(ClaimsError, match="unknown function"):
        _claims(tmp_path, [cons("__import__('os') == 1")])
    with pytest.raises(ClaimsError, match="not allowed"):
        _claims(tmp_path, [cons("(1).real == 1")])


def test_bad_claims_file(tmp_path):
    with pytest.raises(ClaimsError, match="lacks"):
        _claims(tmp_path, [{"id": "x", "paper": "pact"}])
    with pytest.raises(ClaimsError, match="duplicate"):
        _claims(tmp_path, [_c("a"), _c("a")])
    with pytest.raises(ClaimsError, match="basis"):
        _claims(tmp_path, [_c("a", basis="guess")])


def test_project_claims_file_is_well_formed():
    claims = load_claims(ROOT / "config" / "claims.yaml")
    from cultalign.studies import STUDIES

    assert all(c["paper"] in STUDIES for c in claims)  # a registered study
    assert all(c["result"].startswith(f"results/{c['paper']}/") for c in claims if c["kind"] == "value")
    assert all(c.get("unit") for c in claims if c["kind"] == "value")


def test_consistency_checks_read_result_cells_but_never_synthetic_ones(tmp_path):
    from cultalign.core.tables import write_table

    write_table(pd.DataFrame({"key": ["a", "b"], "value": [14.5, -2.0]}), tmp_path / "real.tsv", job={"rule": "r"})
    write_table(pd.DataFrame({"key": ["a"], "value": [1.0]}), tmp_path / "syn.tsv",
                job={"rule": "r", "synthetic_inputs": ["pact.sources"]})

    def cons(id_, check, **kw):
        return {"id": id_, "kind": "consistency", "paper": "pact", "place": "p", "statement": "s", "check": check,
                **kw}
    claims = _claims(tmp_path, [
        cons("sign", "value('real.tsv', 'value', key='a') > 0 > value('real.tsv', 'value', key='b')"),
        cons("syn", "value('syn.tsv', 'value', key='a') > 0"),
        cons("missing_row", "value('real.tsv', 'value', key='z') > 0"),
        cons("needs_unset", "value('real.tsv', 'value', key='a') > 0", needs="real_data.x"),
    ])
    t = evaluate(claims, ["pact"], scale="demo", base=tmp_path, needs_set={"real_data.x": False}).set_index("id")
    assert t.loc["sign", "status"] == "consistent"
    assert "= 14.5 > 0 >" in t.loc["sign", "reason"]
    assert t.loc["syn", "status"] == "not computable" and "synthetic" in t.loc["syn", "reason"]
    assert t.loc["missing_row", "status"] == "not computable" and "found 0" in t.loc["missing_row", "reason"]
    assert t.loc["needs_unset", "status"] == "not computable" and "real_data.x" in t.loc["needs_unset", "reason"]
    from cultalign.claims import claim_result_files
    assert claim_result_files(claims, ["pact"], {"real_data.x": False}) == ["real.tsv", "syn.tsv"]
    with pytest.raises(ClaimsError, match="in quotes"):
        _claims(tmp_path, [cons("bad", "value(1, 'value') > 0")])


def test_load_claims_reparses_a_changed_file_and_hands_out_copies(tmp_path):
    """The loader keeps the checked claims of a file it read, keyed by modification time and size:
    an edit is seen at once, and a caller that changes its claims does not change the next caller's."""
    import os

    p = tmp_path / "claims.yaml"
    text = (ROOT / "config" / "claims.yaml").read_text()
    p.write_text(text)
    first = load_claims(p)
    first[0]["statement"] = "changed by a caller"
    assert load_claims(p)[0]["statement"] != "changed by a caller"
    ids = [c["id"] for c in load_claims(p)]
    # drop the last claim (a consistency claim: no claim refers to it); same mtime, other size
    st = p.stat()
    cut = text.rsplit("\n  - id:", 1)[0] + "\n"
    p.write_text(cut)
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert [c["id"] for c in load_claims(p)] == ids[:-1]


def _check(id_, check, paper="pact"):
    entry = {"id": id_, "kind": "consistency", "paper": paper, "place": "B.9", "statement": "s", "check": check}
    return entry if check else {k: v for k, v in entry.items() if k != "check"}


def test_evidence_statuses_facts_and_summary(tmp_path):
    """Inside the band: `reproduced` only for primary data; values read back from the authors'
    figure data and counts restating the design say so.  Facts count once however many rows."""
    from cultalign.claims import facts_table, summary_table

    pd.DataFrame({"quantity": ["n", "m"], "value": [10, 3]}).to_csv(tmp_path / "r.tsv", sep="\t", index=False)
    p = tmp_path / "claims.yaml"
    entries = [
        _c("own", tolerance=0), _c("own2", tolerance=0), _c("fig", tolerance=0),
        _c("design", tolerance=0, evidence="design"), _c("off", value=4, where={"quantity": "m"}, tolerance=0),
        _c("far", paper="monopolet"),
        _check("arith", "paper('own') == 10"),
        _check("real", "computed('own') == 11"),
    ]
    p.write_text(yaml.safe_dump({"columns": COLUMNS, "claims": entries,
                                 "evidence": {"authors-figure-data": ["fi?"]},
                                 "facts": {"pact.fact.ten": {"statement": "ten", "claims": ["own*"]}}}))
    claims = load_claims(p)
    t = evaluate(claims, ["pact"], scale="demo", base=tmp_path)
    s = t.set_index("id")["status"]
    assert s["own"] == "reproduced" and s["fig"] == "matches the authors' figure data"
    assert s["design"] == "design check" and s["off"] == "differs"
    assert t.set_index("id").loc["own2", "fact"] == "pact.fact.ten"
    f = facts_table(t).set_index("fact")
    assert f.loc["pact.fact.ten", "claims"] == 2 and f.loc["pact.fact.ten", "status"] == "reproduced"
    assert len(f) == 5   # six value rows, five facts
    sm = summary_table(t).set_index(["paper", "kind", "status"])
    assert sm.loc[("pact", "facts", "reproduced"), "count"] == 1
    assert sm.loc[("pact", "facts", "reproduced"), "rows"] == 2
    assert sm.loc[("monopolet", "facts", "not computable"), "reason"] == "study not configured"
    assert sm.loc[("pact", "consistency checks (paper arithmetic)", "consistent"), "count"] == 1
    assert sm.loc[("pact", "consistency checks (real data)", "inconsistent"), "count"] == 1
    # a fact takes the least favourable status of its rows
    pd.DataFrame({"quantity": ["n", "m"], "value": [10, 3]}).to_csv(tmp_path / "r.tsv", sep="\t", index=False)
    t.loc[t["id"] == "own2", "status"] = "differs"
    assert facts_table(t).set_index("fact").loc["pact.fact.ten", "status"] == "differs"


def test_bad_evidence_and_facts_sections(tmp_path):
    p = tmp_path / "claims.yaml"
    for extra, msg in (({"evidence": {"guess": ["a"]}}, "evidence.guess: not one of"),
                       ({"evidence": {"design": ["zz*"]}}, "evidence.design: 'zz\\*' matches no claim"),
                       ({"facts": {"f": {"statement": "s", "claims": ["a", "zz"]}}}, "facts.f: 'zz' matches no claim"),
                       ({"facts": {"f": {"statement": "s", "claims": ["a"]},
                                   "g": {"statement": "s", "claims": ["a*"]}}}, "claim a is in facts f and g")):
        p.write_text(yaml.safe_dump({"columns": COLUMNS, "claims": [_c("a")], **extra}))
        with pytest.raises(ClaimsError, match=msg):
            load_claims(p)


def test_bands_have_no_edge_epsilon_and_rounding_follows_every_input(tmp_path):
    """Float noise goes (0.395 x 100 is 39.5), but nothing passes by a tolerance beyond the band:
    1e-12 past the edge is outside.  half_unit() sums the rounding of every stated number."""
    pd.DataFrame({"quantity": ["edge", "past", "noise"], "value": [10.5, 10.5 + 1e-11, 0.395]}).to_csv(
        tmp_path / "r.tsv", sep="\t", index=False)
    claims = _claims(tmp_path, [
        _c("edge", where={"quantity": "edge"}, tolerance=0.5),
        _c("past", where={"quantity": "past"}, tolerance=0.5),
        _c("noise", where={"quantity": "noise"}, column="rate", value=39.5, unit="percent", tolerance=0),
        _c("a", value=15.4, unit="percent", column="rate", tolerance=0.05),
        _c("b", value=14.0, unit="percent", column="rate", basis="sampling", tolerance=1),
        _c("d", value=1.38, unit="percentage points", basis="sampling", tolerance=0.5, column="gap"),
        _check("diff", "approx(paper('a') - paper('b'), paper('d'), half_unit('a', 'b', 'd'))"),
        _check("eq", "0.1 + 0.2 == 0.3"),
        _check("neq", "100 * (1 + 1e-12) == 100"),
    ])
    pd.DataFrame({"quantity": ["edge", "past", "noise"], "value": [10.5, 10.5 + 1e-11, 0.395],
                  "rate": [0, 0, 0.395]}).to_csv(tmp_path / "r.tsv", sep="\t", index=False)
    t = evaluate(claims, ["pact"], scale="demo", base=tmp_path).set_index("id")
    assert t.loc["edge", "status"] == "reproduced"
    assert t.loc["past", "status"] == "differs"          # passed by the former 1e-9 edge tolerance
    assert t.loc["noise", "status"] == "reproduced"
    assert t.loc["diff", "status"] == "consistent"        # 1.4 vs 1.38 within 0.05 + 0.05 + 0.005
    assert "= 0.105)" in t.loc["diff", "reason"]
    assert t.loc["eq", "status"] == "consistent" and t.loc["neq", "status"] == "inconsistent"
    with pytest.raises(ClaimsError, match="not a value claim"):
        _claims(tmp_path, [_c("a"), {"id": "x", "kind": "consistency", "paper": "pact", "place": "p",
                                     "statement": "s", "check": "approx(1, 1, half_unit('zz'))"}])


def test_checks_with_an_unstated_assumption_show_every_reading(tmp_path):
    def sided(p):
        return {"two-sided": f"wilcoxon_min_p(5) < {p}", "one-sided": f"wilcoxon_min_p(5, two_sided=False) < {p}"}

    claims = _claims(tmp_path, [
        {**_check("p05", ""), "assumption": "one- or two-sided test", "readings": sided(0.05)},
        {**_check("p01", ""), "assumption": "one- or two-sided test", "readings": sided(0.01)},
    ])
    for c in claims:   # check: the conjunction of the readings (what every reading reads)
        assert c["check"] == " and ".join(f"({chk})" for chk in c["readings"].values())
    t = evaluate(claims, ["pact"], scale="demo", base=tmp_path).set_index("id")
    assert t.loc["p05", "status"] == "conditional"
    assert t.loc["p05", "reason"].startswith("holds if one-sided, not if two-sided (the paper does not say: one-")
    assert "two-sided: wilcoxon_min_p(5) = 0.0625 < 0.05 -> does not hold" in t.loc["p05", "reason"]
    assert t.loc["p01", "status"] == "inconsistent" and t.loc["p01", "reason"].startswith("no reading holds")
    for bad, msg in (({"readings": {"a": "1 < 2", "b": "2 < 3"}}, "readings need the assumption"),
                     ({"readings": {"a": "1 < 2"}, "assumption": "x"}, "two or more"),
                     ({"readings": {"a": "1 < 2", "b": "2 < 3"}, "assumption": "x", "check": "1 < 2"}, "not both")):
        with pytest.raises(ClaimsError, match=msg):
            _claims(tmp_path, [{**_check("x", ""), **bad}])


def test_numbers_of_the_authors_data_are_read_from_that_input(tmp_path):
    """A number only the authors' released data give is read from that input's table, not typed;
    the claim and every check that uses it need the input's config key."""
    pd.DataFrame({"quantity": ["n"], "rate": [0.419]}).to_csv(tmp_path / "r.tsv", sep="\t", index=False)
    pd.DataFrame({"key": ["Brazil", "Brazil"], "field": ["personalAllow", "gap"], "value": [41.9, 12.2],
                  "unit": ["percent", "percentage points"]}).to_csv(tmp_path / "site.tsv", sep="\t", index=False)
    site = {"result": "site.tsv", "column": "value", "where": {"key": "Brazil", "field": "personalAllow"}}
    entries = [
        {k: v for k, v in _c("fig", column="rate", unit="percent", tolerance=0.05, needs="real_data.site",
                             value_from=site).items() if k != "value"},
        _check("uses", "paper('fig') > 40"),
    ]
    claims = _claims(tmp_path, entries)
    assert claims[1]["needs"] == "real_data.site"          # inherited from the number it reads
    assert "site.tsv" in claim_result_files(claims, ["pact"], {"real_data.site": True})
    t = evaluate(claims, ["pact"], scale="demo", base=tmp_path, needs_set={"real_data.site": True}).set_index("id")
    assert t.loc["fig", "paper_value"] == 41.9 and t.loc["fig", "status"] == "reproduced"
    assert t.loc["uses", "status"] == "consistent"
    t = evaluate(claims, ["pact"], scale="demo", base=tmp_path, needs_set={"real_data.site": False}).set_index("id")
    assert t.loc["fig", "status"] == "not computable" and "real_data.site" in t.loc["fig", "reason"]
    assert t.loc["uses", "status"] == "not computable" and "real_data.site" in t.loc["uses", "reason"]
    for bad, msg in (({"value": 41.9}, "not both"), ({"needs": None}, "needs its config key")):
        with pytest.raises(ClaimsError, match=msg):
            _claims(tmp_path, [{**entries[0], **bad}])


def test_errata_lists_failed_and_conditional_checks_with_their_resolution(tmp_path):
    from cultalign.claims import errata_table

    claims = _claims(tmp_path, [
        _c("judgments", value=4098, tolerance=0),
        {**_check("design", "200 * 7 * 2 == paper('judgments')"), "resolution": "uses the export's rows"},
        _check("fine", "2 + 2 == 4"),
        _check("open", "1 > 2"),
    ])
    e = errata_table(evaluate(claims, ["pact"], scale="demo", base=tmp_path), claims).set_index("id")
    assert list(e.index) == ["design", "open"]
    assert e.loc["design", "resolution"] == "uses the export's rows"
    assert e.loc["design", "arithmetic"].startswith("200 * 7 * 2 = 2800 == paper('judgments') = 4098")
    assert e.loc["open", "resolution"] == "not recorded"


def test_paper_scale_and_real_data_claims_of_one_number_are_one_fact():
    """A number the paper states once and the workflow checks twice (on the authors' released data
    and by its own run) is one fact of config/claims.yaml."""
    from cultalign.claims import load_claims

    fact = {c["id"]: c["fact"] for c in load_claims(ROOT / "config" / "claims.yaml")}
    for real, run in (("pact.real.s53_no_persona_mae.qwen", "pact.s53_mae_no_persona_qwen3-4b-instruct-2507"),
                      ("pact.real.best_uncertainty_corr", "pact.align_uncertainty_gpt-5.4-mini"),
                      ("pact.real.age_effect", "pact.figure5_age_effect"),
                      ("pact.real.gender_effect", "pact.figure5_gender_effect")):
        assert fact[real] == fact[run] != real


def test_no_typed_value_where_the_place_names_the_authors_data():
    """A number whose place names the authors' released (site / figure) data is read from that data
    (value_from + needs), never typed: the B.9 receiver and pair rates of Table 13, Figure 5's 0.97 / 0.68."""
    import re

    typed = [c["id"] for c in load_claims(ROOT / "config" / "claims.yaml") if c["kind"] == "value"
             and "value_from" not in c and re.search(r"(?i)site data|released (?:site |figure )?data|figure data",
                                                    str(c["place"]))]
    assert typed == []
    claims = {c["id"]: c for c in load_claims(ROOT / "config" / "claims.yaml")}
    vf = claims["pact.b9_rate.receiver_gender.rate_a"]["value_from"]
    assert vf["where"] == {"series": "significance", "key": "Receiver gender", "frame": "all", "field": "rate_a"}
    assert claims["pact.consistency.b9_delta.receiver_gender"]["needs"] == "real_data.pact_site_data"
    assert claims["pact.consistency.b9_delta.receiver_gender"]["evidence"] == "authors' figure data"
    assert claims["pact.consistency.b9_delta.actor_gender"]["evidence"] == "paper arithmetic"   # printed in B.9


def test_a_number_of_the_authors_data_keeps_the_rounding_they_state(tmp_path):
    """half_unit of a value read from the authors' data is half its ``value_from.stated_to`` (the data
    state "14.5%": 0.05), not the float's binary tail; a check that needs it without one is refused."""
    pd.DataFrame({"key": ["a", "b"], "value": [14.9, 14.5], "unit": ["percent", "percent"]}).to_csv(
        tmp_path / "site.tsv", sep="\t", index=False)
    pd.DataFrame({"quantity": ["n"], "rate": [0.1]}).to_csv(tmp_path / "r.tsv", sep="\t", index=False)

    def site(key, **extra):
        return {k: v for k, v in _c(f"rate_{key}", column="rate", unit="percent", tolerance=0.1, basis="sampling",
                                    basis_note="n", needs="real_data.site",
                                    value_from={"result": "site.tsv", "column": "value", "where": {"key": key},
                                                **extra}).items() if k != "value"}
    diff = _c("diff", value=0.43, unit="percentage points", tolerance=0.005, column="gap")
    check = _check("delta", "approx(paper('rate_a') - paper('rate_b'), paper('diff'), "
                   "half_unit('rate_a', 'rate_b', 'diff'))")
    claims = _claims(tmp_path, [site("a", stated_to=0.1), site("b", stated_to=0.1), diff, check])
    t = evaluate(claims, ["pact"], scale="demo", base=tmp_path, needs_set={"real_data.site": True}).set_index("id")
    assert t.loc["delta", "status"] == "consistent" and "= 0.105)" in t.loc["delta", "reason"]
    assert t.loc["delta", "evidence"] == "real data"    # no value claim of evidence authors-figure-data reads it
    with pytest.raises(ClaimsError, match="needs value_from.stated_to"):
        _claims(tmp_path, [site("a"), site("b", stated_to=0.1), diff, check])
    assert convert(14.5, "percent", "percent") == 14.5 and repr(convert(14.5, "percent", "percent")) == "14.5"


def test_readings_of_rounding_and_long_operands_shown_as_numbers(tmp_path):
    """Truncated vs rounded printed shares as two readings (int() truncates); an operand naming more than
    three numbers shows the numbers, not their claim ids."""
    claims = _claims(tmp_path, [
        _c("any", value=74), _c("all", value=300),
        {**_check("share", ""), "assumption": "rounded or truncated",
         "readings": {"rounded": "round(100 * paper('any') / paper('all')) == 24",
                      "truncated": "int(100 * paper('any') / paper('all')) == 24"}},
        _check("min", "min(paper('any'), paper('all'), paper('any'), paper('all')) > 100"),
    ])
    t = evaluate(claims, ["pact"], scale="demo", base=tmp_path).set_index("id")
    assert t.loc["share", "status"] == "conditional"
    assert t.loc["share", "reason"].startswith("holds if truncated, not if rounded")
    assert t.loc["min", "reason"] == "min(74.0, 300.0, 74.0, 300.0) = 74 > 100 -> does not hold"


def test_project_findings_are_well_formed():
    """Section findings of config/claims.yaml: each a statement and its checks; no check in two findings
    (the real-data run's check ids are matched in tests/core/test_real_data_claims.py)."""
    from cultalign.findings import load_findings

    groups = load_findings(ROOT / "config" / "claims.yaml")
    assert groups and all(g["statement"] and g["checks"] for g in groups.values())
    ids = {c["id"] for c in load_claims(ROOT / "config" / "claims.yaml")}
    import fnmatch

    for fid, g in groups.items():
        assert fid.split(".")[0] in ("pact", "personas", "monopolet"), fid
        for pat in g["checks"]:
            if not pat.startswith(("derived: ", "statement: ", "text vs code: ")):
                assert fnmatch.filter(ids, pat), f"findings.{fid}: {pat} matches no claim"
