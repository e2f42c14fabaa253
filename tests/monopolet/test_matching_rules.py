"""The deterministic parts of solution matching (no model): the identical-pair
rule, the ``decision`` column, the judge prompt's worked examples and the
labelled judge-evaluation set.  The judge itself is replaced by a fake that
records what it is asked."""

import sys
from pathlib import Path

import pandas as pd
import pytest

from cultalign.config import load_config

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
    match_counts,
    normalise_action,
    prompt_hashes,
)
from cultalign.monopolet.metrics import (
    agreement_per_dilemma,
    agreement_tables,
    prefilter_recall,
    with_prefilter_columns,
)
from .monopolet_settings import judge_settings, prefilter_settings

ROOT = Path(__file__).resolve().parents[2]

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


def _skipped_pairs():
    cand = pd.DataFrame({"dilemma_id": ["d"] * 4, "solution": [0, 1, 2, 3],
                         "action": ["Tal med naboen", "Køb ørepropper", "Flyt", "Ring til udlejeren"],
                         "stance": ["advised"] * 4})
    ref = pd.DataFrame({"dilemma_id": ["d"] * 3, "solution": [0, 1, 2],
                        "action": ["Skriv til naboen", "Ring til politiet", "Sov hos en ven"],
                        "stance": ["advised"] * 3})
    return candidate_pairs(cand, ref)


def test_prefilter_audit_judges_skipped_pairs_for_recall_only():
    """Audited skipped pairs go to the judge, their verdict is kept apart and M stays 0."""
    p = _skipped_pairs()
    p["judge"] = p.solution_ref == 0  # the prefilter passes 4 pairs, skips 8
    every = judge_settings(few_shot=False, prefilter=prefilter_settings(audit_fraction=1.0).__dict__)
    fake = FakeJudgeClient(failing_rules=())
    out = judge_pairs(fake, p, {}, every, seed=1)
    assert len(fake.asked) == 12 and out.audited.sum() == 8
    assert out.loc[out.audited, "match"].eq(0).all() and out.loc[out.audited, "audit_match"].eq(1).all()
    assert out.loc[~out.audited, "audit_match"].isna().all()
    assert set(out.loc[out.audited, "decision"]) == {"prefilter_reject"}
    counts = match_counts(out)
    assert (counts["judged"], counts["skipped_by_prefilter"], counts["audited"], counts["audit_matches"]) == \
        (4, 8, 8, 8)
    none = judge_settings(few_shot=False, prefilter=prefilter_settings(audit_fraction=0.0).__dict__)
    fake = FakeJudgeClient(failing_rules=())
    out0 = judge_pairs(fake, p, {}, none, seed=1)
    assert len(fake.asked) == 4 and not out0.audited.any()
    # a share draws each pair by its own seeded number: the same pairs in any order or subset
    half = judge_settings(few_shot=False, prefilter=prefilter_settings(audit_fraction=0.5).__dict__)
    a = judge_pairs(FakeJudgeClient(), p, {}, half, seed=7)
    b = judge_pairs(FakeJudgeClient(), p.iloc[::-1], {}, half, seed=7)
    key = ["solution_cand", "solution_ref"]
    assert a.loc[a.audited, key].sort_values(key).values.tolist() == \
        b.loc[b.audited, key].sort_values(key).values.tolist()


def test_prefilter_recall_and_cost_in_the_agreement_table():
    assert prefilter_recall(judge_matches=6, skipped=0, audited=0, audit_matches=0) == 1.0
    # 2 of 10 audited skipped pairs matched: 100 skipped hold an estimated 20 matches; 60 / 80
    assert prefilter_recall(60, 100, 10, 2) == pytest.approx(0.75)
    assert pd.isna(prefilter_recall(60, 100, 0, 0))  # skipped, nothing audited: not measured
    p = _skipped_pairs()
    p["judge"] = p.solution_ref == 0
    s = judge_settings(few_shot=False, prefilter=prefilter_settings(audit_fraction=1.0).__dict__)
    out = judge_pairs(FakeJudgeClient(failing_rules=()), p, {}, s, seed=1)
    sol = pd.DataFrame({"dilemma_id": ["d"], "valid": [True], "solutions": ["[]"], "n_solutions": [0]})
    summary, _, _ = agreement_tables({"m_vs_panel": out.assign(comparison="m_vs_panel")},
                                     {"m": sol, "panel": sol})
    row = summary.iloc[0]
    assert (row.judged_pairs, row.skipped_pairs, row.audited_pairs, row.audit_matches) == (4, 8, 8, 8)
    assert row.prefilter_recall == pytest.approx(4 / 12)
    # Figure 8's table carries them too, per comparison
    topics = pd.DataFrame({"comparison": ["m_vs_panel"] * 2, "topic": ["topic_0", "topic_1"], "AVG": [0.1, 0.2]})
    t = with_prefilter_columns(topics, summary)
    assert t["skipped_pairs"].tolist() == [8, 8] and t["prefilter_recall"].tolist() == pytest.approx([1 / 3] * 2)


def test_paper_config_judges_every_pair():
    """Eq. (2) judges every candidate/reference pair: the paper config keeps the prefilter off."""
    paper = load_config(ROOT / "config" / "config.yaml", ROOT / "config" / "paper.yaml")
    assert paper["monopolet"]["judge"]["prefilter"]["enabled"] is False


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
