"""Solution matching: an LLM judge applies the component matching rules
(action order, action semantics, conditions, entities) to each
candidate/reference pair, reasoning over each rule before its verdict and
ignoring motivation and stance.  M = 1 when no rule is violated.

The judge costs one request per pair.  An embedding prefilter skips pairs
that cannot match: a pair is judged when the cosine similarity of the two
actions reaches ``min_similarity`` or the reference is among the candidate's
``top_k`` most similar; skipped pairs count as M = 0 (``judged=False``).
The paper judges every pair (eq. 2), so the paper config turns the prefilter
off.  When it is on, a seeded share ``audit_fraction`` of the skipped pairs
is judged as well, for the record only (``audited``, ``audit_match``; their
M stays 0): the matches found among them estimate what the prefilter lost,
its recall (``metrics.prefilter_recall``).

Before both, a deterministic rule: a pair whose two actions are the same text
after normalisation (``normalise_action``: Unicode NFKC, casefold,
punctuation removed, whitespace collapsed) is the same solution by every
component rule, so it is a match without a judge call.  Stance plays no part
in M (the paper's matching ignores it; SAA/EAA split matched pairs by
stance), so the rule ignores it too.  ``decision`` records how each pair was
decided: ``identical``, ``prefilter_reject`` or ``judge``.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import asdict, dataclass, fields

import numpy as np
import pandas as pd

from ..core.provenance import text_hash
from ..core.seeds import derive_seed
from ..models import ChatRequest, SamplingParams
from .prompts import PROMPT_DIR, PROMPTS, render
from .solutions_io import explode

RULES = ("order", "semantics", "conditions", "entities")
DECISIONS = ("identical", "prefilter_reject", "judge")
EXAMPLES_FILE = "judge_match_examples.json"
_SPACE = re.compile(r"\s+")


@dataclass
class PrefilterSettings:
    """Config ``monopolet.judge.prefilter``."""

    enabled: bool
    min_similarity: float
    top_k: int
    audit_fraction: float


@dataclass
class JudgeSettings:
    """Config ``monopolet.judge`` without the model (the rule's ``llm``)."""

    max_new_tokens: int
    max_reason_chars: int
    temperature: float
    identical_shortcut: bool
    few_shot: bool
    prefilter: PrefilterSettings

    @classmethod
    def from_config(cls, section) -> "JudgeSettings":
        """From a mapping (the config section, or a rule's params) holding every field."""
        kw = {f.name: section[f.name] for f in fields(cls) if f.name != "prefilter"}
        pf = section["prefilter"]
        return cls(**kw, prefilter=PrefilterSettings(**{f.name: pf[f.name] for f in fields(PrefilterSettings)}))

    def sampling(self, seed: int) -> SamplingParams:
        return SamplingParams.from_config({k: v for k, v in asdict(self).items() if k != "prefilter"}, seed)


def judge_schema(s: JudgeSettings) -> dict:
    """One object per rule, in the order of RULES; in each, the reasoning comes
    before the verdict ``holds`` (the table stores ``<rule>_violated`` = not holds)."""
    rule = {"type": "object", "additionalProperties": False, "required": ["reasoning", "holds"],
            "properties": {"reasoning": {"type": "string", "maxLength": s.max_reason_chars},
                           "holds": {"type": "boolean"}}}
    return {"type": "object", "additionalProperties": False, "required": list(RULES),
            "properties": {r: rule for r in RULES}}


def judge_examples(s: JudgeSettings) -> list[dict]:
    """The worked examples (prompts/judge_match_examples.json), checked against the judge schema."""
    import jsonschema

    ex = json.loads((PROMPT_DIR / EXAMPLES_FILE).read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(judge_schema(s))
    for k, e in enumerate(ex):
        err = next(iter(validator.iter_errors(e["answer"])), None)
        if err is not None:
            raise ValueError(f"{EXAMPLES_FILE}[{k}].answer: {err.message} (monopolet.judge.max_reason_chars="
                             f"{s.max_reason_chars})")
    return ex


def judge_messages(dilemma: str, candidate: str, reference: str, s: JudgeSettings) -> list[dict]:
    """The chat: with ``few_shot``, each worked example as a user turn and the
    assistant's JSON answer, then the pair to judge."""
    msgs = []
    if s.few_shot:
        for e in judge_examples(s):
            msgs.append({"role": "user", "content": render("judge_match", dilemma=e["dilemma"],
                                                           candidate=e["candidate"], reference=e["reference"])})
            msgs.append({"role": "assistant", "content": json.dumps(e["answer"], ensure_ascii=False,
                                                                    separators=(",", ":"))})
    msgs.append({"role": "user", "content": render("judge_match", dilemma=dilemma, candidate=candidate,
                                                   reference=reference)})
    return msgs


def prompt_hashes() -> dict[str, str]:
    """Provenance of the judge prompt: the template and the worked examples."""
    return {**PROMPTS.hashes("judge_match"),
            "judge_match_examples": text_hash((PROMPT_DIR / EXAMPLES_FILE).read_text(encoding="utf-8"))}


def normalise_action(text: str) -> str:
    """Casefolded action text without punctuation and with single spaces
    (Unicode NFKC first, so e.g. non-breaking spaces and ligatures compare equal).
    A missing action (None / NaN, as an empty TSV cell reads) is the empty string."""
    if text is None or (isinstance(text, float) and np.isnan(text)):
        return ""
    t = unicodedata.normalize("NFKC", str(text)).casefold()
    t = "".join(" " if unicodedata.category(ch).startswith("P") else ch for ch in t)
    return _SPACE.sub(" ", t).strip()


def identical_actions(cand: pd.Series, ref: pd.Series) -> pd.Series:
    """True where the two actions are the same text after ``normalise_action`` (and not empty)."""
    a = cand.map(normalise_action)
    b = ref.map(normalise_action)
    return pd.Series((a == b) & (a != ""), index=cand.index, dtype=bool)


def candidate_pairs(cand: pd.DataFrame, ref: pd.DataFrame) -> pd.DataFrame:
    """All (candidate, reference) solution pairs per dilemma present on both sides."""
    m = cand.merge(ref, on="dilemma_id", suffixes=("_cand", "_ref"))
    return m.reset_index(drop=True)


def prefilter(pairs: pd.DataFrame, embedder, s: PrefilterSettings) -> pd.DataFrame:
    out = pairs.copy()
    if out.empty:
        out["similarity"] = []
        out["judge"] = []
        return out
    texts = sorted(set(out["action_cand"]) | set(out["action_ref"]))
    emb = dict(zip(texts, embedder.passages(texts)))
    out["similarity"] = [float(np.dot(emb[a], emb[b])) for a, b in zip(out["action_cand"], out["action_ref"])]
    if not s.enabled:
        out["judge"] = True
        return out
    rank = out.groupby(["dilemma_id", "solution_cand"])["similarity"].rank(ascending=False, method="first")
    out["judge"] = (out["similarity"] >= s.min_similarity) | (rank <= s.top_k)
    return out


def audit_draw(pairs: pd.DataFrame, fraction: float, seed: int) -> pd.Series:
    """The pairs drawn for the prefilter audit: a pair is drawn when its own seeded uniform number
    (``derive_seed`` of the seed, dilemma and both solutions) is below ``fraction``, so the draw
    of a pair does not depend on the shard or on the other pairs."""
    if fraction <= 0 or pairs.empty:
        return pd.Series(False, index=pairs.index, dtype=bool)
    u = [derive_seed(seed, "monopolet", "text", "prefilter_audit", d, c, r) / 2**31
         for d, c, r in zip(pairs["dilemma_id"], pairs["solution_cand"], pairs["solution_ref"])]
    return pd.Series(np.asarray(u) < fraction, index=pairs.index, dtype=bool)


def judge_pairs(client, pairs: pd.DataFrame, dilemmas: dict[str, str], s: JudgeSettings, seed: int,
                max_attempts: int | None = None) -> pd.DataFrame:
    """M per pair.  ``pairs`` carries the prefilter's ``judge`` column.  Identical
    actions (``identical_actions``, when ``s.identical_shortcut``) match without a
    judge call; pairs the prefilter skipped are M = 0; the rest go to the judge.
    Of the skipped pairs, those ``audit_draw`` picks (``s.prefilter.audit_fraction``) are
    judged too, for the prefilter's recall only: ``audit_match`` holds the verdict (1 / 0,
    empty when not audited or invalid), M stays 0.
    Columns added: ``<rule>_violated`` (judged pairs only), ``valid``, ``match``,
    ``judged`` (sent to the judge model for M), ``decision``, ``audited`` and ``audit_match``."""
    out = pairs.copy()
    for r in RULES:
        out[f"{r}_violated"] = pd.array([pd.NA] * len(out), dtype="boolean")
    out["valid"] = True
    out["match"] = 0
    same = identical_actions(out["action_cand"], out["action_ref"]) if s.identical_shortcut and len(out) \
        else pd.Series(False, index=out.index)
    out["decision"] = "judge"
    out.loc[~out["judge"].astype(bool), "decision"] = "prefilter_reject"
    out.loc[same, "decision"] = "identical"
    out.loc[same, "match"] = 1
    skipped = out["decision"] == "prefilter_reject"
    out["audited"] = skipped & audit_draw(out, s.prefilter.audit_fraction, seed)
    out["audit_match"] = pd.array([pd.NA] * len(out), dtype="Int64")
    idx = out.index[out["decision"] == "judge"].tolist()
    audit_idx = out.index[out["audited"]].tolist()
    params = s.sampling(seed)
    reqs = [ChatRequest.make(judge_messages(dilemmas.get(out.at[i, "dilemma_id"], ""), out.at[i, "action_cand"],
                                            out.at[i, "action_ref"], s), params) for i in idx + audit_idx]
    res = client.generate_json(reqs, judge_schema(s), max_attempts=max_attempts) if reqs else []
    for i, r in zip(idx, res):
        out.at[i, "valid"] = r.valid
        if r.valid:
            for rule in RULES:
                out.at[i, f"{rule}_violated"] = not r.value[rule]["holds"]
            out.at[i, "match"] = int(all(r.value[rule]["holds"] for rule in RULES))
    for i, r in zip(audit_idx, res[len(idx):]):
        if r.valid:
            out.at[i, "audit_match"] = int(all(r.value[rule]["holds"] for rule in RULES))
    out["judged"] = out["decision"] == "judge"
    return out.drop(columns=["judge"])


def decision_counts(out: pd.DataFrame) -> dict[str, int]:
    """How the pairs of a ``judge_pairs`` table were decided (every decision, zeros included)."""
    vc = out["decision"].value_counts() if len(out) else {}
    return {d: int(vc.get(d, 0)) for d in DECISIONS}


def match_shard(client, embedder, dilemmas: pd.DataFrame, cand: pd.DataFrame, ref: pd.DataFrame,
                dilemma_ids: pd.Series, comparison: str, s: JudgeSettings, seed: int) -> pd.DataFrame:
    """Every candidate/reference solution pair of the dilemmas ``dilemma_ids`` (one shard of a
    comparison) through the identical-action rule, the prefilter and the judge.  ``cand`` and
    ``ref``: solutions tables (``solutions_io``); ``dilemmas``: dilemma_id, dilemma."""
    cand, ref = explode(cand), explode(ref)
    pairs = candidate_pairs(cand[cand["dilemma_id"].isin(dilemma_ids)], ref[ref["dilemma_id"].isin(dilemma_ids)])
    pairs = prefilter(pairs, embedder, s.prefilter)
    texts = dict(zip(dilemmas["dilemma_id"], dilemmas["dilemma"].fillna("")))
    out = judge_pairs(client, pairs, texts, s, seed)
    out.insert(0, "comparison", comparison)
    return out


def match_counts(out: pd.DataFrame) -> dict[str, int]:
    """Pairs by decision (identical / prefilter_reject / judge), validity and matches, and the
    prefilter audit (skipped pairs judged for the record, the matches and invalid verdicts among them)."""
    decided = decision_counts(out)
    audited = out["audited"].astype(bool) if len(out) else pd.Series(dtype=bool)
    return {"pairs": len(out), "judged": decided["judge"], "identical": decided["identical"],
            "skipped_by_prefilter": decided["prefilter_reject"], "audited": int(audited.sum()),
            "audit_matches": int(out["audit_match"].fillna(0).astype(int).sum()) if len(out) else 0,
            "audit_invalid": int((audited & out["audit_match"].isna()).sum()) if len(out) else 0,
            "valid": int((out["valid"] & out["judged"]).sum()), "invalid": int((~out["valid"]).sum()),
            "matches": int(out["match"].sum()), "judge_matches": int(out.loc[out["judged"], "match"].sum())}
