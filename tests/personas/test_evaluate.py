import json

import numpy as np
import pandas as pd
import pytest

from cultalign.personas.evaluate import (MCS_COLUMNS, fit_temperature, persona_prompt, run_mcs,
                                         sample_trait_scores, type_token_ratio)


def _items_probs(p_high):
    return pd.DataFrame([{"trait": "E", "probs": json.dumps([p_high, 1 - p_high]), "scores": "[5, 1]", "valid": True},
                         {"trait": "E", "probs": json.dumps([p_high, 1 - p_high]), "scores": "[5, 1]", "valid": True}])


def test_sampling_is_seeded_and_follows_probs():
    a = sample_trait_scores(_items_probs(0.8), 4000, seed=3)
    b = sample_trait_scores(_items_probs(0.8), 4000, seed=3)
    assert a.equals(b)
    assert a["E"].mean() == pytest.approx(1 + 4 * 0.8, abs=0.08)
    assert a["O"].isna().all()  # no Openness items -> NaN, never 0


def test_invalid_items_are_excluded_from_sampling():
    t = _items_probs(1.0)
    t.loc[1, ["valid", "probs"]] = [False, json.dumps([0.0, 1.0])]
    assert (sample_trait_scores(t, 50, 1)["E"] == 5.0).all()


def test_temperature_fit_sharpens_near_uniform_softmax():
    rng = np.random.default_rng(0)
    # options whose embeddings share a level direction (+ item-specific noise): cosine similarities in a narrow band
    level = rng.normal(size=(5, 32))
    embs = []
    for _ in range(6):
        e = level * 0.3 + rng.normal(size=(5, 32))
        embs.append(e / np.linalg.norm(e, axis=1, keepdims=True))
    res = fit_temperature(embs, [[5, 4, 3, 2, 1]] * 6)
    assert res["n_probes"] == 6 * 5 * 5
    assert res["tau"] < 0.5  # a plain softmax (tau = 1) is too flat
    assert res["loglik_fit"] > res["loglik_tau1"]


def test_persona_prompt_needs_two_norms():
    p = persona_prompt("Japan", ["Harmony matters", "Punctuality matters."])
    assert "born and raised in Japan" in p
    assert p.endswith("two of which include: Harmony matters and Punctuality matters.")
    with pytest.raises(ValueError, match="two norms"):
        persona_prompt("Japan", ["only one"])


def test_ttr():
    assert type_token_ratio("I I go") == pytest.approx(2 / 3)


def test_table3_ttr_is_over_the_first_sentence_of_each_answer():
    # paper section 5.2: TTR over uniform-length (one-sentence) answers; a second sentence of new
    # words would otherwise raise the ratio, and an answer without a complete sentence is counted apart
    from cultalign.personas.metrics import ttr_table

    resp = pd.DataFrame({"instrument": "cp", "country": "japan", "trait": "E", "priming": "primed", "valid": True,
                         "response": ["I go and I go. Then everyone dances happily tonight.",
                                      "We go home and we rest.",
                                      "I would walk to the station and then"]})
    t = ttr_table(resp, 1)
    assert t["ttr"].iloc[0] == pytest.approx((3 / 5 + 5 / 6) / 2)
    assert (t["responses"].iloc[0], t["short"].iloc[0], t["ttr_sentences"].iloc[0]) == (2, 1, 1)
    two = ttr_table(resp, 2)  # only the first answer has two sentences
    assert two["ttr"].iloc[0] == pytest.approx(8 / 10) and two["responses"].iloc[0] == 1


@pytest.mark.slow
def test_mcs_real_model_records_shuffle_and_mass(smollm2_client):
    items = pd.DataFrame([{"instrument": "t", "item_id": "1", "trait": "E", "format": "choice",
                           "context": "You arrive at a party where you know only the host.",
                           "question": "What do you do?",
                           "options": json.dumps(["I introduce myself to a group.", "I leave early."]),
                           "scores": "[5, 1]", "keyed": ""},
                          {"instrument": "t", "item_id": "2", "trait": "N", "format": "statement", "context": "",
                           "question": "worry about things",
                           "options": json.dumps(["Very inaccurate", "Very accurate"]),
                           "scores": "[1, 5]", "keyed": "plus"}])
    for mode in ("text", "label"):
        out = run_mcs(smollm2_client, items, "Imagine you are someone from Japan.", mode, 1, "japan", "sum")
        assert len(out) == 2 and out["valid"].all()
        assert tuple(out.columns) == MCS_COLUMNS  # the columns an empty item table gets too
        for _, r in out.iterrows():
            assert sorted(json.loads(r["shuffle"])) == [0, 1]
            assert sum(json.loads(r["probs"])) == pytest.approx(1, abs=1e-4)
            assert 0 < r["valid_mass"] <= 1
    assert smollm2_client.stats["model_requests"] == 4


class FakeScoringClient:
    """Fake for a unit test of the empty path: a client asked to score nothing."""

    def score_options(self, requests):
        assert list(requests) == []
        return []


def test_mcs_without_items_gives_an_empty_table_with_its_columns():
    """No item (the rehearsal's stand-in generated no question that passed its checks): the item
    table keeps every column, so the evaluation's validity counts read it (KeyError 'valid' before)."""
    items = pd.DataFrame(columns=["instrument", "item_id", "trait", "format", "context", "question", "options",
                                  "scores", "keyed"])
    out = run_mcs(FakeScoringClient(), items, None, "text", 1, "japan", "sum")
    assert out.empty and tuple(out.columns) == MCS_COLUMNS


def _oeg_items(n):
    return pd.DataFrame([{"instrument": "t", "item_id": str(k), "trait": "E", "format": "choice",
                          "context": f"Situation {k}: a neighbour invites you to a street party.",
                          "question": "What do you do?", "options": json.dumps(["I go and chat.", "I stay home."]),
                          "scores": "[5, 1]", "keyed": ""} for k in range(n)])


def test_oeg_seeds_per_item_when_sampling_shared_when_greedy():
    from cultalign.personas.evaluate import oeg_requests

    sampled = oeg_requests(_oeg_items(3), None, 7, "japan", {"temperature": 0.7, "max_new_tokens": 20})
    assert len({r.params.seed for r in sampled}) == 3
    greedy = oeg_requests(_oeg_items(3), "persona", 7, "japan", {"temperature": 0.0, "max_new_tokens": 20})
    assert {r.params.seed for r in greedy} == {0}


@pytest.mark.slow
def test_oeg_job_generates_in_one_batch(smollm2_client):
    from cultalign.personas.evaluate import generate_oeg, oeg_requests, oeg_table

    items = _oeg_items(3)
    sets = [oeg_requests(items, p, 7, "japan", {"temperature": 0.0, "max_new_tokens": 24})
            for p in ("Imagine you are someone from Japan.", None)]
    res = generate_oeg(smollm2_client, sets)
    assert [len(r) for r in res] == [3, 3]
    # six greedy requests with equal settings decode as one backend batch; a retry round
    # (new seed, same for all retried requests) is one more batch
    rounds = max(p.n_attempts for r in res for p in r)
    assert smollm2_client.stats["backend_batches"] == rounds
    t = oeg_table(items, res[0])
    assert list(t["item_id"]) == ["0", "1", "2"] and t["valid"].any()


def test_keep_sentences_cuts_after_the_second_sentence():
    from cultalign.personas.evaluate import keep_sentences, split_sentences

    k = keep_sentences("I would go.  Then I would eat cake!\nAnd then I would sleep. More")
    assert k == {"text": "I would go. Then I would eat cake!", "sentences": 2, "complete": True, "trimmed": True}
    # abbreviations, initials and decimals do not end a sentence
    assert split_sentences("I ask Dr. Sato, e.g. about J. Smith. It costs 3.5 yen.")[0] == [
        "I ask Dr. Sato, e.g. about J. Smith.", "It costs 3.5 yen."]
    one = keep_sentences('I\'d say "thank you so much." ')
    assert one["sentences"] == 1 and one["complete"] and not one["trimmed"]
    # cut at the token limit before any sentence ended: kept whole, marked unfinished
    cut = keep_sentences("I would walk to the station and then")
    assert cut == {"text": "I would walk to the station and then", "sentences": 0, "complete": False,
                   "trimmed": False}
    # one complete sentence and an unfinished one: the unfinished part is dropped
    assert keep_sentences("I would help them. Then I would call my")["text"] == "I would help them."


def test_oeg_table_records_kept_answer_and_shape():
    from cultalign.models.types import ParsedResult
    from cultalign.personas.evaluate import _oeg_parse, oeg_table

    raws = ["I would bow. I would apologise. I would leave early.", "I would quietly wait for my"]
    # fake parse results (the logic under test is the table, not the model)
    parsed = [ParsedResult(_oeg_parse(r), True, r, [{"raw": r}]) for r in raws]
    items = _oeg_items(2)
    t = oeg_table(items, parsed)
    assert list(t["response"]) == ["I would bow. I would apologise.", "I would quietly wait for my"]
    assert list(t["raw"]) == raws and list(t["sentences"]) == [2, 0]
    assert list(t["trimmed"]) == [True, False] and list(t["complete"]) == [True, False]


def test_oeg_mapping_is_the_papers_softmax_by_default_and_calibration_an_option():
    # paper section 4.3.2: the cosine similarities form a soft distribution (softmax, temperature 1);
    # the fitted temperature is the option personas.oeg_mapping: calibrated
    from cultalign.personas.evaluate import map_responses

    vecs = {"I would go.": [1.0, 0.0], "go": [0.9, 0.1], "stay": [0.1, 0.9]}

    def fake_embed(texts):  # a stand-in encoder: unit vectors from a fixed table
        v = np.asarray([vecs[t] for t in texts], dtype=float)
        return v / np.linalg.norm(v, axis=1, keepdims=True)

    resp = pd.DataFrame([{"instrument": "t", "item_id": "1", "trait": "E", "options": json.dumps(["go", "stay"]),
                          "scores": "[5, 1]", "response": "I would go.", "valid": True}])
    sims = np.asarray([0.9, 0.1]) / np.linalg.norm([0.9, 0.1])
    soft = np.exp(sims) / np.exp(sims).sum()
    paper = map_responses(resp, fake_embed, 0.05)
    assert json.loads(paper["probs"].iloc[0]) == pytest.approx(soft, abs=1e-6)
    assert paper["mapping"].iloc[0] == "softmax"
    assert paper["expected_score"].iloc[0] == pytest.approx(5 * soft[0] + soft[1], abs=1e-6)
    cal = map_responses(resp, fake_embed, 0.05, "calibrated")
    sharp = np.exp(sims / 0.05) / np.exp(sims / 0.05).sum()
    assert json.loads(cal["probs"].iloc[0]) == pytest.approx(sharp, abs=1e-6)
    assert cal["probs_uncalibrated"].iloc[0] == paper["probs"].iloc[0]
    with pytest.raises(ValueError, match="personas.oeg_mapping"):
        map_responses(resp, fake_embed, 1.0, "linear")
