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
    distinctive,
    extract,
    load_inventory,
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
    t = summary(ms).set_index(["paper", "group", "name"])["count"]
    assert t[("all", "total", "numbers")] == len(ms) > 2000
    assert t[("all", "total", "checked by a claim")] + t[("all", "total", "no claim (with a reason)")] == len(ms)
    by_key = {m.key: m for m in ms}
    # spot checks of the rules on the real texts
    assert "pact.normad_rows" in by_key["pact §A.1 2633 #1"].claims
    assert by_key["pact §A.1 2633 #1"].line == 1 and by_key["personas §5.1 25.9 #1"].row == "ZA"
    assert by_key["personas §5.1 25.9 #1"].claims[-1] == "personas.table2.mcs.ZA.bfi44"


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
