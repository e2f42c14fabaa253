"""The published release as models see it: clean question text (not serialized objects) and the norms
its scenarios were built from (not the norms JSON)."""

import pandas as pd
import pytest

from cultalign.core.inputs import InputError
from cultalign.personas.release import (clean_norm, is_serialized, release_norms, release_questions,
                                        scenario_norms, serialized_field)
from cultalign.personas.release_eval import persona_for, release_items

CODES = {"usa": "USA", "brazil": "brazil", "india": "india", "japan": "japan", "saudiarabia": "saudiarabia",
         "southafrica": "southafrica"}
NAMES = {"usa": "United States", "brazil": "Brazil", "india": "India", "japan": "Japan",
         "saudiarabia": "Saudi Arabia", "southafrica": "South Africa"}
# rows of each questions file holding "[Question(trait=..., question=...)]" instead of a question
SERIALIZED = {"USA": 16, "brazil": 9, "india": 16, "japan": 4, "saudiarabia": 11, "southafrica": 7}


@pytest.fixture
def release(shared_data):
    root = shared_data / "culturalpersonas"
    if not (root / "datasets" / "cp" / "questions").is_dir():
        pytest.skip(f"the CulturalPersonas release (datasets/cp) is not under {root}")
    return root


def test_serialized_field_reads_literals_only():
    raw = "[Question(trait='Neuroticism', question=\"Imagine you're late. What do you do?\")]"
    assert is_serialized(raw) and not is_serialized("Imagine you are late (again). What now?")
    assert serialized_field(raw, "question") == "Imagine you're late. What do you do?"
    assert serialized_field(raw, "trait") == "Neuroticism"
    with pytest.raises(ValueError, match="no 'answer'"):
        serialized_field(raw, "answer")
    with pytest.raises(ValueError):
        serialized_field("[Question(trait='E', question=__import__('os').getcwd())]", "question")
    assert clean_norm('3. **Family Ties**: Family is  valued.') == "Family Ties: Family is valued."
    assert clean_norm('2. "In South Africa, Ubuntu matters."') == "In South Africa, Ubuntu matters."


def test_release_questions_are_clean_text(release):
    for code, n in SERIALIZED.items():
        q = release_questions(release, code)
        raw = pd.read_csv(release / "datasets/cp/questions" / f"all_{code}_questions.csv", keep_default_na=False)
        answers = pd.read_csv(release / "datasets/cp/answers" / f"all_{code}_answers.csv", keep_default_na=False)
        assert len(q) == 500
        assert int(q["question_parsed"].sum()) == n
        assert not q["question"].str.contains("Question(", regex=False).any()
        parsed = q[q["question_parsed"]]
        assert raw.loc[parsed.index, "question"].str.startswith("[Question(").all()
        # the parsed text is the answers file's clean copy of the question
        assert (parsed["question"] == answers.loc[parsed.index, "question"]).all()
        assert parsed["question"].str.startswith("Imagine you").all()
        # untouched rows stay as released
        assert (q.loc[~q["question_parsed"], "question"] == raw.loc[~q["question_parsed"], "question"]).all()
    items = release_items(release, "usa", "USA", "full", {}, "published", 1)
    assert len(items) == 500 and not items["question"].str.contains("Question(", regex=False).any()


def test_priming_uses_the_norms_the_scenarios_were_built_from(release):
    differ = []
    for cid, code in CODES.items():
        norms = scenario_norms(release, code)
        assert len(norms) == 10 and not any(n[:1].isdigit() or "**" in n for n in norms)
        sc = pd.read_csv(release / "datasets/cp/scenarios" / f"all_{code}_scenarios.csv", keep_default_na=False)
        assert {clean_norm(t) for t in sc["norm_text"]} == set(norms)
        json_norms = {clean_norm(t) for t in release_norms(release, NAMES[cid])}
        if json_norms != set(norms):
            differ.append(cid)
        p = persona_for(release, NAMES[cid], "primed", 2, 7, cid, code)
        assert p.pool == norms
        assert set(p.norms_for("cp", "3")) <= set(norms)
    assert len(differ) == 5  # the norms JSON is not what five countries' scenarios were built from
    assert persona_for(release, "Japan", "unprimed", 2, 7, "japan", "japan") is None
    assert scenario_norms(release, "usa") == scenario_norms(release, "USA")  # the country id finds its file


def test_bad_serialized_question_names_file_row_field(release, tmp_path):
    import shutil

    root = tmp_path / "rel"
    shutil.copytree(release / "datasets", root / "datasets")
    p = root / "datasets/cp/questions/all_japan_questions.csv"
    q = pd.read_csv(p, keep_default_na=False)
    k = int(q.index[q["question"].str.startswith("[Question(")][0])
    q.loc[k, "question"] = "[Question(trait='Extraversion', question=)]"
    q.to_csv(p, index=False)
    with pytest.raises(InputError) as e:
        release_questions(root, "japan")
    assert e.value.path == str(p) and e.value.row == k + 2 and e.value.field == "question"
    assert "serialized object" in str(e.value)
