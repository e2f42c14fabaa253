"""The monopolet model stages on the real default model (SmolLM2-135M) with
tiny inputs: outputs are schema-valid or recorded invalid, never dropped."""

import pandas as pd
import pytest

from cultalign.models import SamplingParams
from cultalign.monopolet.answers import generate_answers
from cultalign.monopolet.embeddings import E5Embeddings
from cultalign.monopolet.extraction import DilemmaSettings, ExtractionSettings, extract_dilemmas, extract_solutions
from cultalign.monopolet.mapping import map_summaries
from cultalign.monopolet.matching import candidate_pairs, judge_pairs, prefilter
from cultalign.monopolet.text import make_chunks, sentence_table
from .monopolet_settings import judge_settings, mapping_settings, prefilter_settings

pytestmark = pytest.mark.slow

DILEMMA = DilemmaSettings(temperature=0.0, max_new_tokens=96, max_dilemma_chars=240)
SETTINGS = ExtractionSettings(temperature=0.0, max_new_tokens=96, max_solutions=3, max_action_chars=60,
                              postprocess=True)


@pytest.fixture(scope="module")
def emb():
    return E5Embeddings(num_threads=2)


def test_e5_adapter_is_a_langchain_embeddings(emb):
    from langchain_core.embeddings import Embeddings

    assert isinstance(emb, Embeddings)
    q = emb.embed_query("Naboen spiller høj musik")
    d = emb.embed_documents(["Min nabo spiller musik hver aften.", "Jeg købte en ny cykel."])
    assert len(q) == 384 and len(d) == 2
    import numpy as np

    assert np.dot(q, d[0]) > np.dot(q, d[1])


def test_mapping_finds_intro_chunk(smollm2_client, emb):
    seg = pd.DataFrame({"start": range(6), "end": range(1, 7), "speaker": ["V"] * 6, "text": [
        "Velkommen til programmet.", "I dag har vi et panel.",
        "Første dilemma handler om naboen, der spiller høj musik.",
        "Panelet synes, hun skal banke på.", "Næste dilemma handler om en cykel.", "Tak for i dag."]})
    s = sentence_table(seg)
    ch = make_chunks(s, 1, 1)
    summ = pd.DataFrame({"dilemma_id": ["d0"], "summary": ["Naboen spiller høj musik om aftenen."]})
    m = map_summaries(summ, ch, None, emb, smollm2_client, mapping_settings())
    assert m.first_sentence.iloc[0] in range(6) and m.method.iloc[0] != "unmapped"
    assert smollm2_client.stats["model_requests"] >= 1


def test_generated_check_runs_through_the_real_client(smollm2_client, emb):
    """check: generate on the real model: every check is a generation (no option scoring); an
    answer that is neither Ja nor Nej is retried, then counts as not confirmed (never dropped)."""
    seg = pd.DataFrame({"start": range(3), "end": range(1, 4), "speaker": ["V"] * 3, "text": [
        "Velkommen til programmet.", "Første dilemma handler om naboen, der spiller høj musik.", "Tak for i dag."]})
    ch = make_chunks(sentence_table(seg), 1, 1)
    summ = pd.DataFrame({"dilemma_id": ["d0"], "summary": ["Naboen spiller høj musik om aftenen."]})
    m = map_summaries(summ, ch, None, emb, smollm2_client, mapping_settings(check="generate", max_new_tokens=8))
    row = m.iloc[0]
    assert row.method in ("embedding+llm", "llm_earliest", "embedding_unconfirmed")
    assert row.p_yes in (0.0, 1.0) or pd.isna(row.p_yes)
    assert smollm2_client.stats["model_requests"] >= 1


def test_dilemma_solutions_answers_and_judge(smollm2_client, emb):
    sec = pd.DataFrame({"dilemma_id": ["d0"], "episode_id": ["e"], "summary": ["Naboen spiller høj musik."],
                        "section": ["VAERT: Min nabo spiller høj musik hver aften. Hvad gør jeg?\n"
                                    "ANNA: Du skal banke på og tale med naboen.\n"
                                    "PETER: Du skal ikke ringe til politiet."]})
    d = extract_dilemmas(smollm2_client, sec, DILEMMA, seed=1, max_attempts=2)
    assert len(d) == 1 and d.attempts.iloc[0] >= 1
    d["dilemma"] = d["dilemma"].where(d["valid"], sec["summary"])
    d["valid"] = True
    items = d.assign(response=sec["section"])
    sols, status = extract_solutions(smollm2_client, items, "extract_solutions_panel", SETTINGS, seed=1,
                                     max_attempts=2)
    assert len(status) == 1 and {"valid", "n_solutions", "raw"} <= set(status.columns)
    assert status.n_solutions.iloc[0] == len(sols)
    ans = generate_answers(smollm2_client, d, SamplingParams(max_new_tokens=32, seed=1), max_attempts=2)
    assert len(ans) == 1 and ans.n_words.iloc[0] > 0
    cand = pd.DataFrame({"dilemma_id": ["d0", "d0"], "solution": [0, 1],
                         "action": ["Bank på hos naboen", "Køb ørepropper"], "stance": ["advised", "advised"]})
    ref = pd.DataFrame({"dilemma_id": ["d0", "d0"], "solution": [0, 1],
                        "action": ["Tal med naboen", "Ring til politiet"], "stance": ["advised", "advised"]})
    pairs = prefilter(candidate_pairs(cand, ref), emb, prefilter_settings(min_similarity=0.99, top_k=0))
    assert len(pairs) == 4 and not pairs.judge.any()  # nothing reaches 0.99: every pair skipped
    pairs = prefilter(candidate_pairs(cand, ref), emb, prefilter_settings(min_similarity=0.99, top_k=1))
    # best reference per candidate
    assert pairs.judge.sum() == 2 and pairs[pairs.judge].solution_cand.tolist() == [0, 1]
    kept = pairs[pairs.judge & (pairs.solution_cand == 0)]
    assert kept.action_ref.tolist() == ["Tal med naboen"]  # knocking on the door ~ talking to the neighbour
    pairs = prefilter(candidate_pairs(cand, ref), emb, prefilter_settings(min_similarity=0.93, top_k=0))
    assert pairs.judge.sum() == 1 and pairs[pairs.judge].action_ref.iloc[0] == "Tal med naboen"
    out = judge_pairs(smollm2_client, pairs, {"d0": d.dilemma.iloc[0]},
                      judge_settings(max_new_tokens=120, max_reason_chars=40), seed=1, max_attempts=2)
    judged = out[out.judged]
    assert len(judged) == 1 and set(out.match) <= {0, 1}
    if judged.valid.iloc[0]:
        violated = [f"{r}_violated" for r in ("order", "semantics", "conditions", "entities")]
        assert judged.match.iloc[0] == int(not judged[violated].any(axis=1).iloc[0])


@pytest.mark.slow
def test_real_model_names_topics(smollm2_client):
    """SmolLM2-135M names two topics from their keyphrases: schema-valid names within the cap,
    each recorded with its attempts and the term lists beside it."""
    from cultalign.monopolet.topic_names import NamingSettings, name_topics

    from .monopolet_settings import schema_defaults

    topics = pd.DataFrame({"topic": [0, 1], "name": ["0_naboen_hund_musik", "1_bryllup_svigermor_gave"],
                           "top_terms": ["naboen, hund, musik", "bryllup, svigermor, gave"],
                           "keyphrases": ["naboens hund; høj musik; larm om natten", "bryllup; svigermor; gaveliste"]})
    s = NamingSettings.from_config(schema_defaults("monopolet.topics.naming"))
    out, counts = name_topics(smollm2_client, topics, s, seed=20261129)
    assert counts["topics"] == 2 and counts["valid"] + counts["invalid"] == 2
    assert (out["attempts"] >= 1).all() and out["raw"].str.len().gt(0).all()
    ok = out[out["valid"]]
    assert ok["name"].str.len().between(2, s.max_name_chars).all()
    assert out.loc[~out["valid"], "name"].tolist() == out.loc[~out["valid"], "term_name"].tolist()
    assert out["top_terms"].tolist() == topics["top_terms"].tolist()
