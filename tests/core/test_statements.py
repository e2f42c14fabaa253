"""Statements in words (src/cultalign/statements.py, config/claims-statements.yaml): one test per rule on
small fake papers, the lexicon's checks, and the counts per rule on the three papers' texts."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
import yaml

from cultalign.statements import (
    RULES,
    StatementsError,
    check_paper,
    load_lexicon,
    result_files,
    sentences,
    text_tables,
)

ROOT = Path(__file__).resolve().parents[2]
SEEDS = ROOT.parent / "shared" / "seeds"
DATA = "results/fake/data.tsv"

# a fake paper: a table of gains per country and trait, its caption, a figure's data in a result table
FAKE = """Title: A fake paper
## 1 Introduction
We study four continents: Brazil, Japan, the United Kingdom, and the United States.
We evaluate three models: Alpha, Beta, and Gamma.
Our benchmark has two parts: (1) scenarios, (2) questions, and (3) answers.
## 3 Results
Country	Gains
	O	C	E
BR	10.0	4.0	2.0
JP	13.0	3.0	1.0
IN	6.0	2.0	1.5

Table 2: Gains (%) per country and trait. Gains are largest for Japan.

Table 2 shows the gains. Gains stand out especially for Brazil and India.
Alpha shows the highest accuracy, followed by Beta, while Gamma has the lowest accuracy.
The models group into two tiers: (1) careful (Gamma), and (2) bold (Alpha, Beta).
Beta is more bold than Alpha.
Gains are most pronounced in East Asian countries i.e. Japan and India.
Openness shows the best gains of all traits.
The release covers six countries.
Delta shows the highest accuracy.
"""


def lexicon():
    return {
        "papers": {"fake": "fake.txt"},
        "entities": {"fake": {
            "country": {"Brazil": "Brazil", "India": "India", "Japan": "Japan", "UK": "the United Kingdom",
                        "US": "the United States"},
            "model": {"Alpha": "Alpha", "Beta": "Beta", "Gamma": "Gamma", "Delta": "Delta"},
            "trait": {"Openness": "Openness", "Conscientiousness": "Conscientiousness"}}},
        "measures": {"fake": [
            {"name": "gain per country (Table 2)", "entity": "country", "words": "[Gg]ains?", "places": ["Table 2"],
             "source": {"tables": ["Table 2"], "axis": "row"},
             "labels": {"Brazil": "BR", "Japan": "JP", "India": "IN"}},
            {"name": "gain per trait (Table 2)", "entity": "trait", "words": "[Gg]ains?", "places": ["Table 2"],
             "source": {"tables": ["Table 2"], "axis": "column"},
             "labels": {"Openness": "O", "Conscientiousness": "C"}},
            {"name": "accuracy (Figure 4)", "entity": "model", "words": "accuracy|tiers?|bold", "better": "higher",
             "high": "bold", "low": "careful",
             "source": {"result": DATA, "key": "model", "column": "value", "where": {"field": "acc"}},
             "labels": {"Alpha": "a", "Beta": "b", "Gamma": "g", "Delta": "d"}}]},
        "count_nouns": {"continents": {"map": "continent", "readings": ["continent", "m49_region"]}},
        "regions": {"source": "a fake region table", "countries": {
            "Brazil": {"m49_region": "Americas", "m49_subregion": "South America", "continent": "South America"},
            "India": {"m49_region": "Asia", "m49_subregion": "Southern Asia", "continent": "Asia"},
            "Japan": {"m49_region": "Asia", "m49_subregion": "Eastern Asia", "continent": "Asia"},
            "UK": {"m49_region": "Europe", "m49_subregion": "Northern Europe", "continent": "Europe"},
            "US": {"m49_region": "Americas", "m49_subregion": "Northern America", "continent": "North America"}},
            "labels": {"East Asian": {"pattern": "East Asian?", "field": "m49_subregion", "values": ["Eastern Asia"]}}},
        "datasets": {"fake": {"release": {"pattern": "release", "sets": {"country": {
            "result": "results/fake/release.tsv", "column": "country", "noun": "countries"}}}}},
    }


RESULTS = {DATA: pd.DataFrame({"model": ["a", "b", "g"], "field": ["acc"] * 3, "value": [0.9, 0.7, 0.4]}),
           "results/fake/release.tsv": pd.DataFrame({"country": ["Brazil", "India", "Japan"]})}


@pytest.fixture(scope="module")
def rows():
    return pd.DataFrame(check_paper(FAKE, "fake", lexicon(), RESULTS))


def _one(rows, rule, needle):
    hit = rows[(rows.rule == rule) & rows.sentence.str.contains(needle, regex=False)]
    assert len(hit) >= 1, (rule, needle, rows[rows.rule == rule][["sentence", "status"]])
    return hit


def test_sentences_tables_and_their_places():
    ss = sentences(FAKE, "fake")
    cap = next(s for s in ss if s.text.startswith("Table 2:"))
    assert cap.place == "Table 2" and cap.key == "fake §3 'Table 2 Gains per country'" and cap.line == 13
    after = next(s for s in ss if s.text.startswith("Gains stand out"))
    assert after.refs == ["Table 2"] and after.place == ""            # from the sentence right before it
    t = text_tables(FAKE)["Table 2"]
    assert t.rows == ["BR", "JP", "IN"] and t.columns[1:] == ["Gains O", "Gains C", "Gains E"]
    assert t.last[1:] == ["O", "C", "E"] and t.cells[(1, 1)] == 13.0


def test_extreme_names_the_top_or_bottom_of_the_data(rows):
    hit = _one(rows, "extreme", "Alpha shows the highest accuracy").set_index("entities")
    assert hit.loc["Alpha", "status"] == "holds" and "Alpha 0.9 > Beta 0.7 > Gamma 0.4" in hit.loc["Alpha", "evidence"]
    assert hit.loc["Gamma", "status"] == "holds"                     # "Gamma has the lowest": its own word
    assert _one(rows, "extreme", "Gains are largest for Japan").status.tolist() == ["holds"]
    assert _one(rows, "extreme", "Delta shows").status.tolist() == ["undecided"]   # not in the data
    assert "Delta: not in the data" in _one(rows, "extreme", "Delta shows").evidence.iloc[0]
    best = _one(rows, "extreme", "Openness shows the best")
    assert best.status.tolist() == ["undecided"] and "higher or lower" in best.evidence.iloc[0]   # no `better`


def test_ordering_followed_by_and_comparatives_in_the_measures_sense(rows):
    assert _one(rows, "ordering", "followed by Beta").status.tolist() == ["holds"]
    bold = _one(rows, "ordering", "Beta is more bold than Alpha")   # 'bold' is the measure's high label
    assert bold.status.tolist() == ["does not hold"] and "Beta > Alpha" in bold.evidence.iloc[0]


def test_group_labels_tiers_and_regions(rows):
    tiers = _one(rows, "group labels", "two tiers")
    assert tiers.status.tolist() == ["holds"] and "careful: Gamma; bold: Alpha, Beta" in tiers.evidence.iloc[0]
    region = _one(rows, "group labels", "East Asian countries")
    assert region.status.tolist() == ["does not hold"] and "India is Southern Asia" in region.evidence.iloc[0]


def test_stand_out_is_the_top_of_the_measure(rows):
    hit = _one(rows, "stand out", "stand out especially for Brazil and India")
    assert hit.status.tolist() == ["does not hold"]           # Japan's row mean 5.67 is the largest
    assert "top 2 of 3? Japan 5.667 > Brazil 5.333 > India 3.167" in hit.evidence.iloc[0]


def test_count_in_words_against_lists_enumerations_and_regions(rows):
    assert _one(rows, "count in words", "three models").status.tolist() == ["holds"]
    parts = _one(rows, "count in words", "two parts")
    assert parts.status.tolist() == ["does not hold"] and "its enumeration: 3" in parts.evidence.iloc[0]
    cont = _one(rows, "count in words", "four continents")
    assert cont.status.tolist() == ["conditional"]           # 4 by the seven continents, 3 by M49's regions
    assert "holds by continent, not by m49_region" in cont.evidence.iloc[0]


def test_caption_vs_text_compares_the_same_measure_and_direction(rows):
    """The caption's "largest for Japan" against the text's "stand out for Brazil and India" (Table 2)."""
    cvt = rows[rows.rule == "caption vs text"]
    assert cvt.status.tolist() == ["does not hold"]
    assert cvt.evidence.iloc[0] == ("caption of Table 2: Japan | text (fake §3 'Gains stand out especially for'): "
                                    "Brazil, India")
    same = FAKE.replace("especially for Brazil and India", "especially for Japan")
    r = pd.DataFrame(check_paper(same, "fake", lexicon(), RESULTS))
    assert r[r.rule == "caption vs text"].status.tolist() == ["holds"]
    alone = pd.DataFrame(check_paper(FAKE.replace("Gains stand out especially for Brazil and India.", ""), "fake",
                                     lexicon(), RESULTS))
    assert alone[alone.rule == "caption vs text"].status.tolist() == ["undecided"]   # the text says nothing


def test_external_dataset_counts_against_its_data(rows):
    hit = _one(rows, "external dataset", "six countries")
    assert hit.status.tolist() == ["does not hold"] and "vs 3 in the data" in hit.evidence.iloc[0]
    none = pd.DataFrame(check_paper(FAKE, "fake", lexicon(), {DATA: RESULTS[DATA]}))
    assert _one(none, "external dataset", "six countries").status.tolist() == ["undecided"]


def test_every_candidate_is_kept_with_a_key_and_a_status(rows):
    assert set(rows.rule) <= set(RULES) and set(rows.status) <= {"holds", "does not hold", "conditional", "undecided"}
    assert not rows.duplicated(["rule", "key"]).any()
    assert rows.key.str.match(r"fake §\S+ '[^']+'(?: \(\d+\))? #\d+$").all()
    assert (rows[rows.status == "undecided"].evidence != "").all()    # an undecided statement says why


def test_lexicon_errors_name_the_measure(tmp_path):
    p = tmp_path / "lex.yaml"
    lex = lexicon()
    lex["measures"]["fake"][0]["entity"] = "planet"
    p.write_text(yaml.safe_dump(lex))
    with pytest.raises(StatementsError, match=r"measures.fake\[0\] \(gain per country \(Table 2\)\): entity kind"):
        load_lexicon(p)
    p.write_text(yaml.safe_dump({"papers": {}, "entities": {}}))
    with pytest.raises(StatementsError, match="missing section 'measures'"):
        load_lexicon(p)
    assert result_files(lexicon()) == ["results/fake/data.tsv", "results/fake/release.tsv"]


@pytest.mark.realdata
def test_statements_of_the_three_papers(shared_data):
    """Counts per rule on the three texts, with the site data and the CulturalPersonas release counts
    computed from ../shared/data; the statements the rules find wrong or conditional, spot-checked."""
    if not SEEDS.is_dir():
        pytest.skip(f"paper texts not present at {SEEDS}")
    from cultalign.core.yamlload import safe_load
    from cultalign.pact.real_data import pact_site_data
    from cultalign.personas.real_data import personas_release_counts
    from cultalign.statements import check_papers, paper_texts

    lex = load_lexicon(ROOT / "config" / "claims-statements.yaml")
    countries = safe_load((ROOT / "config" / "config.yaml").read_text())["personas"]["countries"]
    site = pact_site_data(shared_data / "pact" / "pact_site_summary_data.json")
    release = personas_release_counts(shared_data / "culturalpersonas", countries)
    results = {"results/pact/real_data/site_data.tsv": site,
               "results/personas/real_data/release_counts.tsv": release.astype({"value": int})}
    t = check_papers(paper_texts(lex, SEEDS), lex, results)
    n = t.groupby(["rule", "status"]).size().to_dict()
    assert set(t.rule) == set(RULES)
    assert {k: v for k, v in n.items() if k[1] != "undecided"} == {
        ("caption vs text", "does not hold"): 1, ("count in words", "conditional"): 2,
        ("count in words", "does not hold"): 1, ("count in words", "holds"): 28, ("external dataset", "holds"): 6,
        ("extreme", "conditional"): 5, ("extreme", "holds"): 11, ("group labels", "does not hold"): 2,
        ("group labels", "holds"): 5, ("ordering", "holds"): 3, ("stand out", "does not hold"): 1,
        ("stand out", "holds"): 2}
    assert (t[t.status == "undecided"].evidence != "").all()
    bad = t[t.status.isin(["does not hold", "conditional"])].set_index("key")
    ev = bad["evidence"]
    assert "India is Southern Asia; Saudi Arabia is" in ev["personas §D.1 'In particular gains are most' #1"]
    assert "'three categories' vs its enumeration: 1" in ev["monopolet §5 'We select a representative sample' #1"]
    assert "(OLMo) min 12 not above" in ev["pact §4.1 'Therefore these models group descriptively' #1"]
    assert "holds by aggregate gap" in bad.loc["pact §5.3 'Overall Llama and DeepSeek show' #1", "evidence"]
    assert bad.loc["personas §5.2 'CulturalPersonas provides higher lexical diversity' #1", "rule"] == "caption vs text"
