import json

import pandas as pd

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
