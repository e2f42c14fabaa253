"""The inventory of every number the papers state (src/cultalign/inventory.py,
config/claims-inventory.yaml): extraction with locations, classification by rules, claim links
and hand entries, and the coverage of the real paper texts in ../shared/seeds."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from cultalign.claims import load_claims
from cultalign.inventory import (
    InventoryError,
    classify,
    claim_places,
    coverage_problems,
    derived_checks,
    false_reasons,
    distinctive,
    extract,
    load_inventory,
    paper_texts,
    read_papers,
    summary,
)

ROOT = Path(__file__).resolve().parents[2]
SEEDS = ROOT.parent / "shared" / "seeds"

FAKE_PAPER = (
    "Title: A fake paper\n"
    "## 1 Introduction\n"
    "We study 2,633 scenarios (Rao et al., 2024) and find 39.5% allow, a change of −0.8 points.\n"
    "## 3 Results\n"
    "### 3.2 Setup\n"
    "See Table 2 and [link](https://arxiv.org/abs/2402.09369).\n"
    "Country\tA\tB\n"
    "BR\t19.1\t19.1\n"
    "IN\t14.8\t19.1\n"
    "\n"
    "Table 2: Gains (%) per country.\n"
    "## Appendix A Data\n"
    "### A.1 Filters\n"
    "We keep 75 countries.\n"
)


def fake_inventory(**extra):
    inv = {
        "reasons": {"citation-year": "a citation year", "link": "a link", "label-number": "a label",
                    "not-checked-result": "a result no claim checks"},
        "papers": {"fake": "fake.txt"},
        "structural": [
            {"name": "link", "before": r"https?://[^\s)]*", "reason": "link"},
            {"name": "table number", "before": r"Table\s", "reason": "label-number"},
            {"name": "heading", "before": r"#{1,6}\s+(?:Appendix\s+)?", "reason": "label-number"},
        ],
        "wording": [{"name": "citation year", "number": r"(?:19|20)\d\d", "before": r"al\.,\s",
                     "reason": "citation-year"}],
        "hand": {},
    }
    inv.update(extra)
    return inv


def value_claim(cid, value, place, **kw):
    return {"id": cid, "kind": "value", "paper": "fake", "place": place, "statement": kw.pop("statement", cid),
            "value": value, **kw}


def test_extract_locations_sections_tables_and_signs():
    ms = {m.key: m for m in extract(FAKE_PAPER, "fake")}
    m = ms["fake §1 2,633 #1"]
    assert (m.line, m.column, m.value, m.place, m.row) == (3, 10, 2633.0, "", "")
    assert ms["fake §1 39.5% #1"].value == 39.5
    assert ms["fake §1 −0.8 #1"].value == pytest.approx(-0.8)     # a minus sign after a space
    cells = [m for m in ms.values() if m.row]
    assert [(m.row, m.number, m.place) for m in cells] == [
        ("BR", "19.1", "Table 2"), ("BR", "19.1", "Table 2"), ("IN", "14.8", "Table 2"), ("IN", "19.1", "Table 2")]
    assert ms["fake §A.1 75 #1"].section == "A.1"
    assert ms["fake §3.2 2402.09369 #1"].section == "3.2"
    # a dotted label is one number without a value, the hyphen of a name is no minus sign
    (dotted,) = extract("see 3.3.1 Norm Relevance", "p")
    assert dotted.number == "3.3.1" and math.isnan(dotted.value)
    (name,) = extract("Llama-3.1 model", "p")
    assert name.number == "3.1" and name.value == 3.1


def test_plain_text_headings_give_sections():
    text = "Abstract\n\nWe use 5 traits.\n\n4.3.1 Multiple-Choice Selection (MCS)\n\nIn MCS, 3 models answer.\n"
    assert [(m.section, m.number) for m in extract(text, "p")] == [
        ("Abstract", "5"), ("4.3.1", "4.3.1"), ("4.3.1", "3")]


def test_classify_links_claims_by_value_and_place_and_pairs_table_cells():
    claims = [
        value_claim("fake.rows", 2633, "Section 1"),
        value_claim("fake.br.a", 19.1, "Table 2", statement="BR A"),
        value_claim("fake.br.b", 19.1, "Table 2", statement="BR B"),
        value_claim("fake.in.b", 19.1, "Table 2", statement="IN B"),
        value_claim("fake.in.a", 14.8, "Table 2"),
        value_claim("fake.countries", 75, "Appendix A.2"),      # another place, not distinctive
        {"id": "fake.consistency.rows", "kind": "consistency", "paper": "fake", "place": "Section 1",
         "statement": "s", "check": "paper('fake.rows') == 2633"},
    ]
    ms = {m.key: m for m in classify(extract(FAKE_PAPER, "fake"), fake_inventory(), claims)}
    assert ms["fake §1 2,633 #1"].claims == ["fake.consistency.rows", "fake.rows"]
    assert ms["fake §1 2,633 #1"].rule == "claim at its place"
    # equal cells pair one to one with equal claims, those naming the row first
    assert [ms[f"fake §3.2 19.1 #{k}"].claims for k in (1, 2, 3)] == [["fake.br.a"], ["fake.br.b"], ["fake.in.b"]]
    assert ms["fake §1 2024 #1"].reason == "citation-year"
    assert ms["fake §3.2 2 #1"].reason == "label-number"        # "Table 2"
    assert ms["fake §3.2 2402.09369 #1"].reason == "link"
    m75 = ms["fake §A.1 75 #1"]
    assert not m75.claims and not m75.reason                    # nothing covers it ...
    problems = coverage_problems(list(ms.values()), fake_inventory(), claims)
    assert any(p.startswith("fake §A.1 75 #1 (line 14, column 9): no claim and no reason") for p in problems)
    # ... until a hand entry does; a hand entry for a number the text lacks is a problem too
    inv = fake_inventory(hand={"fake §A.1 75 #1": {"claims": ["fake.count*"]},
                               "fake §A.1 76 #1": {"reason": "not-checked-result"}})
    ms = classify(extract(FAKE_PAPER, "fake"), inv, claims)
    assert next(m for m in ms if m.key == "fake §A.1 75 #1").claims == ["fake.countries"]
    left = [p for p in coverage_problems(ms, inv, claims) if "no claim and no reason" not in p]
    assert left == ["hand entry 'fake §A.1 76 #1' matches no number of the papers"]
    inv["hand"]["fake §A.1 76 #1"] = {"claims": ["fake.nothing"]}
    assert "hand entry 'fake §A.1 76 #1': no claim 'fake.nothing'" in coverage_problems(ms, inv, claims)


def test_claim_places_and_distinctive_numbers():
    assert claim_places("Section 3.2 / A.5") == {"Section 3.2", "Appendix A.5"}
    assert claim_places("Table 2 vs Table 6; Abstract") == {"Table 2", "Table 6", "Abstract"}
    assert [distinctive(n) for n in ("2,633", "0.241", "500", "3,000", "0.5", "75")] == [
        True, True, False, False, False, False]


def test_load_inventory_rejects_unknown_reasons_and_conditions(tmp_path):
    p = tmp_path / "inv.yaml"
    p.write_text("reasons: {link: a link}\npapers: {}\nstructural:\n  - {name: x, reason: nope}\nwording: []\n")
    with pytest.raises(InventoryError, match=r"structural\[0\] \(x\): unknown reason 'nope'"):
        load_inventory(p)
    p.write_text("reasons: {link: a link}\npapers: {}\n"
                 "structural:\n  - {name: x, reason: link, befor: a}\nwording: []\n")
    with pytest.raises(InventoryError, match=r"unknown condition\(s\) \['befor'\]"):
        load_inventory(p)
    p.write_text("reasons: {link: a link}\npapers: {}\nstructural: []\nwording: []\nhand: {'p §1 2 #1': {}}\n")
    with pytest.raises(InventoryError, match="needs claims or a reason"):
        load_inventory(p)


@pytest.mark.realdata
def test_inventory_covers_every_number_of_the_papers():
    """Every number the three texts state has a claim or a reason; no hand entry is stale; counts."""
    if not SEEDS.is_dir():
        pytest.skip(f"paper texts not present at {SEEDS}")
    inv = load_inventory(ROOT / "config" / "claims-inventory.yaml")
    claims = load_claims(ROOT / "config" / "claims.yaml")
    ms = classify(read_papers(inv, SEEDS), inv, claims)
    assert coverage_problems(ms, inv, claims) == []
    assert false_reasons(ms, inv, claims) == []     # no reason says "not checked" of a number a claim checks
    t = summary(ms).set_index(["paper", "group", "name"])["count"]
    assert t[("all", "total", "numbers")] == len(ms) > 2000
    assert t[("all", "total", "checked by a claim")] + t[("all", "total", "no claim (with a reason)")] == len(ms)
    by_key = {m.key: m for m in ms}
    # spot checks of the rules on the real texts
    assert "pact.normad_rows" in by_key["pact §A.1 2633 #1"].claims
    assert by_key["pact §A.1 2633 #1"].line == 1 and by_key["personas §5.1 25.9 #1"].row == "ZA"
    assert by_key["personas §5.1 25.9 #1"].claims[-1] == "personas.table2.mcs.ZA.bfi44"
    # the derived checks per rule and status on the real texts
    d = derived_checks(ms, claims, paper_texts(inv, SEEDS))
    n = d.groupby(["rule", "status"]).size().to_dict()
    assert n[("same quantity", "holds")] >= 40 and ("same quantity", "does not hold") not in n
    assert {k: v for k, v in n.items() if k[0] in ("total and parts", "design count", "percent of counts",
                                                    "ranking in words", "up to")} == {
        ("total and parts", "holds"): 2, ("total and parts", "conditional"): 1, ("total and parts", "undecided"): 3,
        ("design count", "holds"): 3, ("design count", "undecided"): 7, ("percent of counts", "conditional"): 1,
        ("ranking in words", "undecided"): 5, ("up to", "conditional"): 1, ("up to", "does not hold"): 1}
    # "up to +25.9% in South Africa (vs. BFI)": South Africa's own row and the BFI column, both shown
    up = d[d.rule == "up to"].set_index("key")["arithmetic"]
    assert "its row (ZA): the largest of its 7 numbers is 32.9" in up["personas §5.1 25.9% #1"]
    assert "its column (MCS BFI): the largest of its 6 numbers is 25.9" in up["personas §5.1 25.9% #1"]
    # the checks that cannot fail are coverage: metric bounds, printed units, numbers linked because equal
    cov = d[d.coverage != ""]
    assert set(cov.rule) == {"metric bounds", "printed unit", "same quantity"} and (cov.status == "holds").all()
    assert set(d[d.coverage == ""].rule) >= {"printed sign", "up to", "total and parts", "percent of counts"}
    # every failing or conditional derived check has what the workflow does about it, and no stale entry
    bad = d[d.status.isin(["does not hold", "conditional"])]
    assert sorted(f"{r.rule} | {r.key}" for r in bad.itertuples()) == sorted(inv["derived_resolutions"]) == [
        "percent of counts | monopolet §A.2 24% #1", "total and parts | monopolet §A.3 859 #1",
        "up to | personas §5.1 25.9% #1", "up to | personas §5.1 32.8% #1"]


def test_derived_checks_bounds_sign_and_unit():
    text = "## 1 Results\nA rate of 120% and a gap of +4.3 points; agreement 0.9 and 12.5 dilemmas.\n"
    claims = [value_claim("fake.rate", 120, "Section 1", unit="percent"),
              value_claim("fake.gap", -4.3, "Section 1", unit="percentage points"),
              value_claim("fake.agree", 0.9, "Section 1", unit="fraction"),
              value_claim("fake.n", 12.5, "Section 1", unit="count")]
    ms = classify(extract(text, "fake"), fake_inventory(), claims)
    d = derived_checks(ms, claims).set_index(["rule", "claim"])["holds"]
    assert not d[("metric bounds", "fake.rate")]        # a percent above 100
    assert d[("printed unit", "fake.rate")]
    assert not d[("printed sign", "fake.gap")]           # printed +4.3, the claim says -4.3
    assert d[("metric bounds", "fake.agree")]
    assert not d[("metric bounds", "fake.n")]            # a count is a whole number
    t = summary(ms, derived_checks(ms, claims)).set_index(["paper", "group", "name"])["count"]
    assert t[("all", "derived check", "metric bounds: does not hold")] == 2
    # "up to X" in the text against the table the number is taken from
    claims = [value_claim("fake.br.a", 19.1, "Table 2", unit="percent"),
              value_claim("fake.in.a", 14.8, "Table 2", unit="percent")]
    for limit, holds in (("19.1", True), ("14.8", False)):
        text = FAKE_PAPER.replace("We keep 75 countries.", f"Gains reach up to {limit}% (Table 2).")
        d = derived_checks(classify(extract(text, "fake"), fake_inventory(), claims), claims)
        assert d[d.rule == "up to"]["holds"].tolist() == [holds]


def derived_of(text, claims=(), rule=None, texts=None):
    claims = list(claims)
    for c in claims:
        c.setdefault("fact", c["id"])
    ms = classify(extract(text, "fake"), fake_inventory(), claims)
    d = derived_checks(ms, claims, texts)
    return d if rule is None else d[d.rule == rule]


def test_derived_same_quantity_agrees_to_the_printed_rounding():
    """Fake paper: a table cell restated in the abstract (linked to the cell's claim), and two claims
    of one fact printed to different roundings."""
    text = ("## Abstract\nGains reach 19.1% overall.\n## 3 Results\nCountry\tA\nBR\t19.1\n\n"
            "Table 2: Gains (%).\n## 4 Size\nWe ask 3,000 questions.\n## 5 More\nAbout 3,010 questions.\n")
    claims = [value_claim("fake.br", 19.1, "Table 2 / Abstract", unit="percent"),
              value_claim("fake.q", 3000, "Section 4", unit="count", fact="fake.fact.q"),
              value_claim("fake.q2", 3010, "Section 5", unit="count", fact="fake.fact.q")]
    d = derived_of(text, claims, "same quantity").set_index("claim")
    assert d.loc["fake.br", "status"] == "holds"
    assert d.loc["fake.fact.q", "status"] == "does not hold"        # 3,000 vs 3,010: beyond 0.5 + 0.5
    assert "|3010 - 3000| = 10" in d.loc["fake.fact.q", "arithmetic"]
    # a claim's stated range: its ends are not the quantity, no check
    claims = [value_claim("fake.r", 0.61, "Section 1", unit="correlation", basis="range")]
    ms = classify(extract("## 1 R\nr = 0.61-0.73 and 0.61 again.\n", "fake"), fake_inventory(), claims)
    assert (derived_checks(ms, claims).rule == "same quantity").sum() == 0


def test_derived_totals_against_parts_products_and_averages():
    """Fake paper: totals the text names, a table's total row, and a total no printed parts give."""
    text = ("## 1 A\nIn total, 1,095 pairs were annotated. Of these, 541 pairs by one and 554 by the other.\n"
            "## 2 B\nIn total, 1,096 pairs were annotated. Of these, 541 pairs by one and 554 by the other.\n"
            "## 3 C\nWe reviewed 99 dilemmas. The total number of solutions was 859, with average of 8.67 "
            "solutions per dilemma.\n"
            "## 4 D\nEach of 6 countries has 500 questions, 3,000 in total.\n"
            "## 5 E\nSite\tN\nX\t10\nY\t12\nTotal\t23\n\nTable 3: Counts.\n")
    d = derived_of(text, rule="total and parts").set_index("key")
    assert d.loc["fake §1 1,095 #1", "status"] == "holds"
    assert d.loc["fake §1 1,095 #1", "arithmetic"] == "total 1,095 = 541 + 554"
    assert d.loc["fake §2 1,096 #1", "status"] == "undecided"        # no parts add up: cannot decide
    assert d.loc["fake §3 859 #1", "status"] == "conditional"        # 859/99 = 8.677: 8.67 only truncated
    assert "rounded 8.68, truncated 8.67" in d.loc["fake §3 859 #1", "arithmetic"]
    assert d.loc["fake §4 3,000 #1", "arithmetic"] == "total 3,000 = 500 x 6"
    assert d.loc["fake §5 23 #1", "status"] == "does not hold"       # 10 + 12 = 22
    assert d.loc["fake §5 23 #1", "place"] == "Table 3"


def test_derived_design_counts_per_unit_times_units():
    """Fake paper: 100 per trait x five traits against the 500 it states, and a product no count states."""
    text = ("## 1 A\nEach country has 500 questions (100 per trait) over five Big Five traits.\n"
            "## 2 B\nWe wrote 7 per country.\n")
    d = derived_of(text, rule="design count", texts={"fake": text + "The six countries.\n"}).set_index("key")
    assert d.loc["fake §1 100 #1", "status"] == "holds"
    assert d.loc["fake §1 100 #1", "arithmetic"].startswith("100 per trait x 5 ('five Big Five traits') = 500")
    assert d.loc["fake §2 7 #1", "status"] == "undecided"            # 7 x 6 = 42: the paper states no 42
    d = derived_of(text, rule="design count").set_index("key")
    assert d.loc["fake §2 7 #1", "arithmetic"] == "7 per country: the paper states no single number of countrys"


def test_derived_percent_of_counts_rounding_and_truncation():
    """Fake paper: a percentage of counts printed near it, rounded, truncated only, and a ratio it misstates."""
    text = ("## 1 A\nOut of 300 dilemmas, 74 had an issue (24%).\n"
            "## 2 B\nOut of 300 dilemmas, 74 had an issue (24.7%).\n"
            "## 3 C\nIssues in 74/300 dilemmas (25.6%).\n"
            "## 4 D\nOut of 300 dilemmas, 74 had an issue (25.4%).\n"
            "## 5 E\nA 51% share of answers.\n")
    d = derived_of(text, rule="percent of counts").set_index("key")
    assert d.loc["fake §1 24% #1", "status"] == "conditional"
    assert d.loc["fake §1 24% #1", "arithmetic"].endswith("holds only truncated")
    assert d.loc["fake §2 24.7% #1", "status"] == "conditional"       # 24.67: rounded only
    assert d.loc["fake §3 25.6% #1", "status"] == "does not hold"     # written as the ratio: 24.67
    assert "fake §4 25.4% #1" not in d.index                          # no pair of counts comes near it
    assert "fake §5 51% #1" not in d.index


def test_derived_rankings_named_in_words_against_the_table():
    """Fake paper: "the highest" and "the lowest" against the column and row of the cell they restate."""
    text = ("## 3 Results\nModel\tBR\tIN\nA\t19.1\t14.8\nB\t12.0\t9.9\nC\t10.0\t11.0\n\nTable 2: Gains (%).\n"
            "## 4 Text\nModel A shows the highest gain, 19.1%, and B the lowest, 12.0%; "
            "the best is 0.42.\n")
    claims = [value_claim("fake.a.br", 19.1, "Table 2 / Section 4", unit="percent"),
              value_claim("fake.a.in", 14.8, "Table 2", unit="percent"),
              value_claim("fake.b.br", 12.0, "Table 2 / Section 4", unit="percent"),
              value_claim("fake.b.in", 9.9, "Table 2", unit="percent"),
              value_claim("fake.c.br", 10.0, "Table 2", unit="percent"),
              value_claim("fake.c.in", 11.0, "Table 2", unit="percent"),
              value_claim("fake.best", 0.42, "Section 4", unit="correlation")]
    d = derived_of(text, claims, "ranking in words").set_index("key")
    assert d.loc["fake §4 19.1% #1", "status"] == "holds"
    assert d.loc["fake §4 12.0% #1", "status"] == "does not hold"     # 10.0 below it in its column, 9.9 in its row
    assert "not the min of its column or row" in d.loc["fake §4 12.0% #1", "arithmetic"]
    assert d.loc["fake §4 0.42 #1", "status"] == "undecided"          # no table cell states it


def test_derived_failures_go_onto_the_errata_with_their_resolution():
    from cultalign.claims import derived_errata

    text = "## 1 A\nOut of 300 dilemmas, 74 had an issue (24%).\n"
    d = derived_of(text)
    e = derived_errata(d, {"percent of counts | fake §1 24% #1": "neither value"})
    assert e[["id", "status", "resolution"]].values.tolist() == [
        ["derived: percent of counts | fake §1 24% #1", "conditional", "neither value"]]


def test_a_reason_that_contradicts_the_claims_is_found():
    """A hand entry that marks a number "not checked" while a value claim states it at its place (the
    B.9 V = 0.054 that pact.cramer_scenario_type checks) is a false reason; a structural reason is not."""
    text = "## 3 Results\nScenario type: V=0.054, and see Table 2.\n"
    claims = [value_claim("fake.v", 0.054, "Section 3"), value_claim("fake.two", 2, "Section 3")]
    inv = fake_inventory(hand={"fake §3 0.054 #1": {"reason": "not-checked-result"}})
    ms = classify(extract(text, "fake"), inv, claims)
    assert false_reasons(ms, inv, claims) == [
        "fake §3 0.054 #1: reason not-checked-result (hand), but fake.v state(s) that number at its place"]
    inv["hand"] = {}
    ms = classify(extract(text, "fake"), inv, claims)
    assert [m.claims for m in ms if m.number == "0.054"] == [["fake.v"]]     # linked once the entry goes
    assert false_reasons(ms, inv, claims) == []                              # "Table 2": a label, not a claim


def test_scientific_notation_is_one_number():
    (m,) = extract("## B.9 X\nAll tests are p < 1e-300.\n", "fake")
    assert m.number == "1e-300" and m.value == 1e-300
