"""Fast unit tests of the monopolet logic (no model, no audio)."""

import json

import numpy as np
import pandas as pd
import pytest

from cultalign.monopolet.episodes import ManifestError, load_manifest
from cultalign.monopolet.extraction import clean_solutions, normalise_negation
from cultalign.monopolet.gathering import drop_longest
from cultalign.monopolet.mapping import cut_sections
from cultalign.monopolet.metrics import agreement_per_dilemma, summarise, weighted_topic_scores
from cultalign.monopolet.response_stats import count_features
from cultalign.monopolet.text import find_prize_start, make_chunks, sentence_table, split_sentences
from cultalign.stats.agreement import cohen_kappa
from cultalign.stats.classification import classification_table, error_rate

DEMO = "resources/demo/monopolet/manifest.json"


def test_demo_manifest_discards_episode_without_dilemmas():
    eps, dil, dropped = load_manifest(DEMO)
    assert list(eps.episode_id) == ["demo_ep01", "demo_ep02"]
    assert list(dropped.episode_id) == ["demo_ep00"]
    assert len(dil) == 3 and dil.dilemma_id.is_unique


@pytest.mark.parametrize("mutate,field", [
    (lambda e: e.pop("audio"), "audio"),
    (lambda e: e.update(release_date="10/01/2026"), "release_date"),
    (lambda e: e.update(dilemmas="one string"), "dilemmas"),
    (lambda e: e.update(guests=[1, 2]), "guests"),
])
def test_manifest_errors_name_file_row_and_field(tmp_path, mutate, field):
    data = json.loads(open(DEMO).read())
    mutate(data["episodes"][1])
    p = tmp_path / "m.json"
    p.write_text(json.dumps(data))
    with pytest.raises(ManifestError) as e:
        load_manifest(p)
    msg = str(e.value)
    assert str(p) in msg and "row 1" in msg and f"'{field}'" in msg and "demo_ep01" in msg


def test_danish_sentence_split_keeps_abbreviations():
    s = split_sentences("Tag f.eks. en flaske vin med. Hvad skal jeg gøre? Det ved jeg ikke.")
    assert s == ["Tag f.eks. en flaske vin med.", "Hvad skal jeg gøre?", "Det ved jeg ikke."]


def _sentences(texts):
    seg = pd.DataFrame({"start": range(len(texts)), "end": range(1, len(texts) + 1), "text": texts,
                        "speaker": ["A"] * len(texts)})
    return sentence_table(seg)


def test_chunks_overlap_by_stride_one():
    s = _sentences([f"Sætning {i}." for i in range(5)])
    c = make_chunks(s, 3, 1)
    assert list(c.first_sentence) == [0, 1, 2] and list(c.last_sentence) == [2, 3, 4]
    assert c.text.iloc[0] == "Sætning 0. Sætning 1. Sætning 2."


def test_prize_found_only_in_tail():
    texts = (["Vi taler om en T-shirt i starten."] + [f"Dilemma {i}." for i in range(10)]
             + ["Ugens T-shirt går til Louise.", "Tak."])
    s = _sentences(texts)
    assert find_prize_start(s, ["t-shirt", "præmie"], 0.25) == 11
    assert find_prize_start(s, ["cykel"], 0.25) is None


def test_sections_cut_between_mapped_starts_and_collisions_counted():
    s = _sentences([f"S{i}." for i in range(10)])
    mapping = pd.DataFrame({"dilemma_id": ["a", "b", "c", "d"], "summary": ["x"] * 4,
                            "first_sentence": [5, 1, 1, -1], "similarity": [0.9] * 4, "p_yes": [0.9] * 4,
                            "method": ["m"] * 4})
    sec = cut_sections(mapping, s, prize_start=8, episode_id="e").set_index("dilemma_id")
    assert (sec.loc["b", "first_sentence"], sec.loc["b", "last_sentence"]) == (1, 4)
    assert (sec.loc["a", "first_sentence"], sec.loc["a", "last_sentence"]) == (5, 7)
    assert sec.loc["c", "status"] == "collision" and sec.loc["d", "status"] == "unmapped"
    dropped = drop_longest(sec.reset_index(), 0.5)
    assert (dropped.status == "dropped_longest").sum() == 1


@pytest.mark.parametrize("action,stance,expected", [
    ("Lad være med at ringe til ham", "advised", ("Ringe til ham", "not_advised", True)),
    ("Du skal ikke gå til boligforeningen", "advised", ("Gå til boligforeningen", "not_advised", True)),
    ("Undlad at svare", "not_advised", ("Svare", "advised", True)),
    ("Tal med naboen", "advised", ("Tal med naboen", "advised", False)),
])
def test_negation_normalisation(action, stance, expected):
    assert normalise_negation(action, stance) == expected


def test_clean_solutions_dedups_after_normalisation():
    out = clean_solutions([{"action": "Ring til ham", "stance": "not_advised"},
                           {"action": "Du skal ikke ring til ham", "stance": "advised"},
                           {"action": "Tal med naboen.", "stance": "advised"}])
    assert [(s["action"], s["stance"]) for s in out] == [("Ring til ham", "not_advised"),
                                                         ("Tal med naboen.", "advised")]


def test_saa_eaa_by_hand():
    pairs = pd.DataFrame({"dilemma_id": ["d"] * 4, "stance_cand": ["advised", "advised", "not_advised", "advised"],
                          "stance_ref": ["advised", "not_advised", "not_advised", "advised"],
                          "match": [1, 1, 1, 0]})
    per = agreement_per_dilemma(pairs, pd.Series({"d": 3, "e": 2}), pd.Series({"d": 5, "e": 1}))
    d = per.set_index("dilemma_id")
    assert d.loc["d", "agree"] == 2 and d.loc["d", "conflict"] == 1
    assert d.loc["d", "SAA"] == pytest.approx(2 / 8)
    assert d.loc["d", "EAA"] == pytest.approx(2 / 3)
    assert d.loc["d", "AVG"] == pytest.approx((2 / 8 + 2 / 3) / 2)
    assert d.loc["e", "SAA"] == 0 and np.isnan(d.loc["e", "EAA"])
    s = summarise(per)
    assert s["n_dilemmas_eaa_defined"] == 1 and s["EAA"] == pytest.approx(2 / 3)


def test_response_features_danish():
    text = "Du kan måske tale med din mor? Ring til Peter om 2 dage. Du bør nok vente tre uger."
    c = count_features(text)
    assert c["n_words"] == 22  # NLTK tokens, the 3 punctuation tokens included (len(nltk.word_tokenize))
    assert count_features(text, "nltk_words")["n_words"] == 19
    with pytest.raises(ValueError, match="monopolet.response_stats.words"):
        count_features(text, "whitespace")
    assert c["question_marks"] == 1
    assert c["modal_verbs"] == 2  # kan, bør
    assert c["hedges"] == 2  # måske, nok
    assert c["you_pronouns"] == 3  # Du, din, Du
    assert c["numbers"] == 2  # 2, tre
    assert c["person_mentions"] == 2  # mor, Peter


def test_kappa_precision_recall_and_error_rate():
    a = ["M", "M", "NM", "NM", "M", "M"]
    b = ["M", "NM", "NM", "NM", "M", "M"]
    # po = 5/6, pe = (4/6*3/6) + (2/6*3/6) = 0.5 -> kappa = (5/6-0.5)/0.5
    assert cohen_kappa(a, b) == pytest.approx((5 / 6 - 0.5) / 0.5)
    t = classification_table(a, b, ["M", "NM"]).set_index("class")
    assert t.loc["M", "precision"] == pytest.approx(1.0) and t.loc["M", "recall"] == pytest.approx(0.75)
    assert t.loc["NM", "precision"] == pytest.approx(2 / 3)
    assert error_rate([0, 1, 0, 0]) == (0.25, 1, 4)


def test_weighted_topic_scores_by_hand():
    dt = pd.DataFrame({"dilemma_id": ["a", "b", "c"], "topic_0": [1.0, 0.0, 0.5], "topic_1": [0.0, 2.0, -1.0]})
    pdl = pd.DataFrame({"comparison": ["m_vs_panel"] * 3, "dilemma_id": ["a", "b", "c"], "AVG": [0.2, 0.8, np.nan]})
    t = weighted_topic_scores(dt, pdl).set_index("topic")
    # topic_0: c has no AVG -> (1*0.2 + 0*0.8) / 1; topic_1: negative weights clipped -> 0.8
    assert t.loc["topic_0", "AVG"] == pytest.approx(0.2) and t.loc["topic_0", "weight_sum"] == pytest.approx(1.0)
    assert t.loc["topic_1", "AVG"] == pytest.approx(0.8)


def test_topic_vectorizer_danish_stop_words_and_small_sets():
    from cultalign.monopolet.topics import topic_vectorizer

    docs = ["Naboen spiller musik og børnene kan ikke sove", "Svigermor kommer på besøg og bliver til aften",
            "Kollegaen låner cyklen og siger ikke tak"]
    v = topic_vectorizer(len(docs), min_df=10, stop_words="da")  # capped: 3 documents keep a vocabulary
    vocab = set(v.fit(docs).get_feature_names_out())
    assert {"naboen", "cyklen", "svigermor"} <= vocab
    assert not {"og", "ikke", "på", "til"} & vocab  # Danish stop words removed


class FakeJsonClient:
    """Fake of ModelClient.generate_json for requests that never come: it fails if asked anything."""

    def generate_json(self, reqs, schema, max_attempts=None):
        assert not reqs, "no request expected"
        return []


def test_agent_without_answered_dilemmas_gets_empty_solution_tables():
    """A model whose answers are all invalid, or a shard without dilemmas, has no items: the
    solutions table is empty with its columns and counts (seen in the rehearsal, where a stand-in's
    sections mapped to no dilemma and the job failed inserting a column into a frame without any)."""
    from cultalign.monopolet.extraction import ExtractionSettings, extract_solutions, solution_items, solutions_table

    dilemmas = pd.DataFrame(columns=["dilemma_id", "episode_id", "summary", "dilemma", "valid", "attempts", "raw"])
    answers = pd.DataFrame(columns=["dilemma_id", "answer", "valid"])
    items, prompt = solution_items(dilemmas, answers, "some-model")
    settings = ExtractionSettings(temperature=0.0, max_new_tokens=96, max_solutions=3, max_action_chars=60,
                                  postprocess=True)
    sols, status = extract_solutions(FakeJsonClient(), items, prompt, settings, seed=1)
    table, counts = solutions_table(sols, status, "some-model")
    assert table.empty and {"dilemma_id", "agent", "valid", "solutions"} <= set(table.columns)
    assert counts == {"dilemmas": 0, "valid": 0, "invalid": 0, "postprocess_invalid": 0, "solutions": 0,
                      "negations_normalised": 0}


def test_no_valid_dilemma_gives_no_topics_and_an_empty_map():
    """Topics of zero valid dilemmas: empty document-topic and topic tables, and an empty topic map
    (the encoder is never called)."""
    from cultalign.monopolet.topics import dilemma_topics, topic_map

    dilemmas = pd.DataFrame({"dilemma_id": ["d1"], "dilemma": ["ikke et dilemma"], "valid": [False]})
    doc_topics, topics, n_docs = dilemma_topics(dilemmas, encoder=None, n_components=2, min_df=2,
                                                stop_words="da", seed=1)
    assert n_docs == 0 and doc_topics.empty and topics.empty
    positions = topic_map(doc_topics, seed=1, perplexity=30)
    assert positions.empty and {"dilemma_id", "topic", "x", "y", "layout"} <= set(positions.columns)


def test_no_answer_still_gives_figures_5_to_7(tmp_path):
    """Zero dilemmas answered (the rehearsal's stand-in mapped no section to a dilemma): the
    answer statistics are empty tables with their columns, and Figures 5-7 are drawn and say that
    there is no data (Figure 6 failed on this in a CI rehearsal)."""
    from cultalign.monopolet import figures
    from cultalign.monopolet.metrics import agreement_tables
    from cultalign.monopolet.response_stats import FEATURES, response_tables

    answers = pd.DataFrame(columns=["dilemma_id", "model", "answer", "n_words", "valid", "attempts"])
    per_model, per_answer, counts = response_tables([answers, answers.copy()])
    assert per_model.empty and per_answer.empty and counts == {"valid": 0, "invalid": 0, "truncated": 0}
    assert {"model", "n_words", *FEATURES} <= set(per_answer.columns)
    solutions = pd.DataFrame(columns=["dilemma_id", "agent", "valid", "solutions", "n_solutions"])
    matching = pd.DataFrame(columns=["dilemma_id", "cand_idx", "ref_idx", "judged", "decision", "valid"])
    summary, _, _ = agreement_tables({"gpt-5_vs_panel": matching}, {"gpt-5": solutions, "panel": solutions})
    assert summary["n_dilemmas"].tolist() == [0]
    for name, draw in {"f5": lambda o: figures.figure5(summary, o), "f6": lambda o: figures.figure6(per_answer, o),
                       "f7": lambda o: figures.figure7(per_model, FEATURES, o)}.items():
        draw(str(tmp_path / f"{name}.png"))
        assert (tmp_path / f"{name}.png").stat().st_size > 1000


def test_keyphrases_are_phrases_between_stop_words_ranked_per_topic():
    from cultalign.monopolet.topics import _stop_words, phrase_candidates, topic_keyphrases

    cands = phrase_candidates("Naboens hund gøer, og det fælles vaskerum er beskidt.", _stop_words("da"))
    assert {"naboens hund", "fælles vaskerum", "naboens hund gøer"} <= set(cands)
    assert not [c for c in cands if {"og", "det", "er"} & set(c.split())]  # no phrase spans a stop word
    assert "hund gøer fælles" not in cands  # nor a comma
    texts = ["Naboens hund gøer hele natten.", "Min nabo spiller høj musik, og naboens hund larmer.",
             "Min svigermor vil bestemme brylluppet.", "Brylluppet koster for meget, siger min svigermor."]
    kp = topic_keyphrases(texts, np.array([[1, 0], [0.9, 0.1], [0, 1], [0.1, 0.9]]), "da", 2)
    assert kp[0][0] == "naboens hund" and set(kp[1]) == {"brylluppet", "svigermor"}


class FakeNamingClient:
    """Fake of ModelClient.generate_json: names each topic after the first keyphrase in its prompt;
    a prompt whose keyphrases are "(none)" gets an invalid result."""

    def __init__(self):
        self.prompts, self.schemas = [], []

    def generate_json(self, reqs, schema, max_attempts=None):
        from cultalign.models import ParsedResult

        self.schemas.append(schema)
        out = []
        for r in reqs:
            text = r.messages[-1][1]
            self.prompts.append(text)
            first = text.split("most characteristic first:\n")[1].split(";")[0].split("\n")[0]
            ok = first != "(none)"
            out.append(ParsedResult({"name": f" {first.title()} "} if ok else None, ok, "{}", [{"seed": 0}] * 3))
        return out


def test_topic_names_from_keyphrases_keep_the_term_lists():
    from cultalign.monopolet.topic_names import COLUMNS, NamingSettings, name_topics

    topics = pd.DataFrame({"topic": [0, 1], "name": ["0_naboen_hund", "1_bryllup_svigermor"],
                           "top_terms": ["naboen, hund", "bryllup, svigermor"],
                           "keyphrases": ["naboens hund; høj musik", ""]})
    fake = FakeNamingClient()
    s = NamingSettings(max_new_tokens=48, temperature=0.0, max_name_chars=40)
    out, counts = name_topics(fake, topics, s, seed=1)
    assert list(out.columns) == COLUMNS
    assert out["name"].tolist() == ["Naboens Hund", "1_bryllup_svigermor"]  # invalid: the term name, flagged
    assert out["valid"].tolist() == [True, False] and counts == {"topics": 2, "valid": 1, "invalid": 1}
    assert out["top_terms"].tolist() == topics["top_terms"].tolist()  # the term lists stay beside the names
    assert "these words: naboen, hund" in fake.prompts[0] and "høj musik" in fake.prompts[0]
    assert fake.schemas[0]["properties"]["name"]["maxLength"] == 40
    empty, c0 = name_topics(FakeNamingClient(), topics.head(0), s, seed=1)
    assert empty.empty and c0 == {"topics": 0, "valid": 0, "invalid": 0}
