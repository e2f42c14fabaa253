"""The deterministic parts of solution matching (no model): the identical-pair
rule, the ``decision`` column, the judge prompt's worked examples and the
labelled judge-evaluation set.  The judge itself is replaced by a fake that
records what it is asked."""

import sys
from pathlib import Path

import pandas as pd
import pytest

from cultalign.models import ParsedResult
from cultalign.monopolet.matching import (
    RULES,
    candidate_pairs,
    decision_counts,
    identical_actions,
    judge_examples,
    judge_messages,
    judge_pairs,
    judge_schema,
    normalise_action,
    prompt_hashes,
)
from cultalign.monopolet.metrics import agreement_per_dilemma
from .monopolet_settings import judge_settings

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from monopolet_judge import NEGATIVE, POSITIVE, confusion, labelled_pairs  # noqa: E402  (the judge benchmark's set)


class FakeJudgeClient:
    """Fake of ModelClient.generate_json: records each pair it is asked about and
    answers with a fixed verdict per rule (all rules hold unless listed)."""

    def __init__(self, failing_rules=("semantics",)):
        self.asked = []
        self.failing = set(failing_rules)

    def generate_json(self, requests, schema, max_attempts=3):
        out = []
        for r in requests:
            self.asked.append(r.messages[-1][1])
            value = {rule: {"reasoning": "x", "holds": rule not in self.failing} for rule in RULES}
            out.append(ParsedResult(value, True, "{}", [{"seed": 0}]))
        return out


@pytest.mark.parametrize("a,b", [
    ("Tal med naboen", "tal med naboen"),
    ("Tal med naboen.", "Tal med naboen"),
    ("  Tal   med\tnaboen ", "Tal med naboen"),
    ("Bank på, og tal med naboen!", "Bank på og tal med naboen"),
    ("Tal\u00a0med naboen", "Tal med naboen"),  # non-breaking space (NFKC)
    ("TAL MED SØSTEREN", "tal med søsteren"),
])
def test_normalised_texts_equal(a, b):
    assert normalise_action(a) == normalise_action(b)


@pytest.mark.parametrize("a,b", [
    ("Tal med naboen", "Tal med chefen"),
    ("Tal med naboen", "Tal med naboen om musikken"),
    ("Tal med søsteren", "Tal med sosteren"),  # letters are not folded: ø is not o
    ("Lån hende 1000 kr", "Lån hende 100 kr"),
])
def test_different_texts_not_equal(a, b):
    assert normalise_action(a) != normalise_action(b)


def test_empty_actions_are_never_identical():
    same = identical_actions(pd.Series(["", "...", "Ring", None, float("nan")]),
                             pd.Series(["", "!", "ring", None, float("nan")]))
    assert same.tolist() == [False, False, True, False, False]


def _pairs():
    cand = pd.DataFrame({"dilemma_id": ["d"] * 3, "solution": [0, 1, 2],
                         "action": ["Tal med naboen.", "tal med naboen", "Køb ørepropper"],
                         "stance": ["advised", "not_advised", "advised"]})
    ref = pd.DataFrame({"dilemma_id": ["d"] * 2, "solution": [0, 1], "action": ["Tal med naboen", "Ring til politiet"],
                        "stance": ["advised", "advised"]})
    return cand, ref


def test_decision_column_identical_prefilter_and_judge():
    cand, ref = _pairs()
    p = candidate_pairs(cand, ref)
    # prefilter verdicts written by hand: it rejects (cand 1, ref 0) although the texts are identical,
    # and (cand 2, ref 0); every other pair goes on
    p["judge"] = ~(((p.solution_cand == 1) & (p.solution_ref == 0)) | ((p.solution_cand == 2) & (p.solution_ref == 0)))
    fake = FakeJudgeClient()
    out = judge_pairs(fake, p, {"d": "Naboen larmer."}, judge_settings(few_shot=False), seed=1)
    got = {(r.solution_cand, r.solution_ref): (r.decision, r.match, r.judged) for r in out.itertuples()}
    assert got == {
        (0, 0): ("identical", 1, False),         # same text up to punctuation
        (1, 0): ("identical", 1, False),         # identical wins over the prefilter; stance plays no part in M
        (2, 0): ("prefilter_reject", 0, False),
        (0, 1): ("judge", 0, True), (1, 1): ("judge", 0, True), (2, 1): ("judge", 0, True),
    }
    assert len(fake.asked) == 3 and all("Ring til politiet" in q for q in fake.asked)
    assert decision_counts(out) == {"identical": 2, "prefilter_reject": 1, "judge": 3}
    judged = out[out.judged]
    assert judged["semantics_violated"].all() and not judged["order_violated"].any()
    assert out.loc[~out.judged, [f"{r}_violated" for r in RULES]].isna().all().all()


def test_judge_verdict_all_rules_hold_is_a_match():
    cand, ref = _pairs()
    p = candidate_pairs(cand, ref).assign(judge=True)
    out = judge_pairs(FakeJudgeClient(failing_rules=()), p, {}, judge_settings(few_shot=False), seed=1)
    assert out.loc[out.decision == "judge", "match"].eq(1).all()


def test_shortcut_off_sends_identical_pairs_to_the_judge():
    cand, ref = _pairs()
    p = candidate_pairs(cand, ref).assign(judge=True)
    fake = FakeJudgeClient()
    out = judge_pairs(fake, p, {}, judge_settings(identical_shortcut=False, few_shot=False), seed=1)
    assert len(fake.asked) == len(p) and set(out.decision) == {"judge"} and out.match.sum() == 0
    assert decision_counts(out) == {"identical": 0, "prefilter_reject": 0, "judge": len(p)}


def test_no_pairs():
    cand, ref = _pairs()
    p = candidate_pairs(cand.iloc[:0], ref).assign(judge=pd.Series(dtype=bool))
    out = judge_pairs(FakeJudgeClient(), p, {}, judge_settings(), seed=1)
    assert out.empty and "decision" in out.columns and decision_counts(out) == dict.fromkeys(
        ("identical", "prefilter_reject", "judge"), 0)


def test_identical_pairs_make_demo_like_agreement_non_degenerate():
    """Solutions shaped like the demo's (the same short actions on both sides, one
    with both stances): even a judge that rejects every pair leaves SAA and EAA
    defined and non-zero, through the identical rule alone."""
    cand = pd.DataFrame({"dilemma_id": ["d0", "d0", "d1"], "solution": [0, 1, 0],
                         "action": ["Tal med naboen", "Tal med naboen", "Ring til kommunen"],
                         "stance": ["advised", "not_advised", "advised"]})
    ref = pd.DataFrame({"dilemma_id": ["d0", "d0", "d1"], "solution": [0, 1, 0],
                        "action": ["Tal med naboen", "Tal med chefen", "Skriv til naboen"],
                        "stance": ["advised", "not_advised", "advised"]})
    p = candidate_pairs(cand, ref).assign(judge=True)
    out = judge_pairs(FakeJudgeClient(failing_rules=RULES), p, {}, judge_settings(few_shot=False), seed=1)
    per = agreement_per_dilemma(out, cand.groupby("dilemma_id").size(), ref.groupby("dilemma_id").size())
    d0 = per.set_index("dilemma_id").loc["d0"]
    assert (d0.agree, d0.conflict) == (1, 1) and d0.SAA == pytest.approx(0.25) and d0.EAA == pytest.approx(0.5)
    assert pd.isna(per.set_index("dilemma_id").loc["d1", "EAA"])  # nothing matched there


def test_worked_examples_fit_the_schema_and_make_the_chat():
    s = judge_settings(few_shot=True)
    ex = judge_examples(s)
    assert len(ex) >= 1 and {e["answer"]["semantics"]["holds"] for e in ex} == {True, False}
    msgs = judge_messages("Dilemma", "A", "B", s)
    assert [m["role"] for m in msgs] == ["user", "assistant"] * len(ex) + ["user"]
    assert "Solution A: A" in msgs[-1]["content"] and "Solution B: B" in msgs[-1]["content"]
    assert len(judge_messages("Dilemma", "A", "B", judge_settings(few_shot=False))) == 1
    assert list(judge_schema(s)["properties"]) == list(RULES)
    assert list(judge_schema(s)["properties"]["order"]["properties"]) == ["reasoning", "holds"]  # reasoning first
    with pytest.raises(ValueError, match=r"judge_match_examples.json\[0\].*max_reason_chars"):
        judge_examples(judge_settings(max_reason_chars=10))
    assert set(prompt_hashes()) == {"judge_match", "judge_match_examples"}


def test_labelled_set_is_consistent_with_its_labels():
    pairs, dilemmas = labelled_pairs()
    assert set(pairs.kind) == set(POSITIVE + NEGATIVE) and set(pairs.dilemma_id) == set(dilemmas)
    assert set(pairs.language) == {"da", "en", "da-en"}
    assert pairs.groupby("expected").size().min() >= 30
    same = identical_actions(pairs.action_cand, pairs.action_ref)
    # the shortcut fires exactly on the designed identical pairs: never on a paraphrase or a negative
    assert same.tolist() == pairs.kind.isin(["identical", "identical_variant"]).tolist()
    c = confusion(pairs.assign(match=pairs.expected, valid=True))
    assert (c["fp"], c["fn"], c["accuracy"]) == (0, 0, 1.0)


@pytest.mark.slow
def test_real_judge_identical_pairs_by_rule_and_schema_valid_verdicts(smollm2_client):
    """SmolLM2-135M as the judge: identical pairs are matches through the rule
    (no request), the other pairs get a schema-valid verdict on the first attempt."""
    import jsonschema

    from cultalign.models import ChatRequest, SamplingParams

    cand = pd.DataFrame({"dilemma_id": ["d"] * 4, "solution": [0, 1, 2, 3],
                         "action": ["Tal med naboen om musikken", "tal med naboen om musikken.",
                                    "Køb ørepropper til børnene", "Ring til politiet"],
                         "stance": ["advised", "not_advised", "advised", "advised"]})
    ref = pd.DataFrame({"dilemma_id": ["d"], "solution": [0], "action": ["Tal med naboen om musikken"],
                        "stance": ["advised"]})
    p = candidate_pairs(cand, ref).assign(judge=True)
    s = judge_settings(max_new_tokens=224, max_reason_chars=60)
    out = judge_pairs(smollm2_client, p, {"d": "Naboen spiller høj musik hver aften."}, s, seed=3, max_attempts=2)
    assert out.decision.tolist() == ["identical", "identical", "judge", "judge"]
    assert out.match.tolist()[:2] == [1, 1]
    judged = out[out.judged]
    assert judged.valid.all() and judged[[f"{r}_violated" for r in RULES]].notna().all().all()
    assert smollm2_client.stats["model_requests"] == 2  # one per judged pair, none for the identical ones
    msgs = judge_messages("Naboen spiller høj musik hver aften.", "Ring til politiet", "Tal med naboen om musikken", s)
    res = smollm2_client.generate_json([ChatRequest.make(msgs, SamplingParams(max_new_tokens=224, seed=3))],
                                       judge_schema(s), max_attempts=1)[0]
    assert res.valid and res.n_attempts == 1
    jsonschema.validate(res.value, judge_schema(s))
    assert smollm2_client.stats["cache_hits"] >= 1  # the same request as the pair judged above
