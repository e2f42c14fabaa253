"""Model behaviour on PACT instances (section 4): decision prompts, parsing to
FOLLOW_CULTURE / ALLOW_PREFERENCE / UNKNOWN, and the log-probability mode.

Generation uses the paper's decoding (temperature 0.3, top-p 0.9, at most 128
new tokens at paper scale; config ``pact.behaviour``).  An output with no
recognisable A/B answer is retried (``generate_parsed``) and then recorded as UNKNOWN with its
raw text; rates are computed over valid decisions and every table reports the
UNKNOWN count.  The log-prob mode scores the answer letters "A" and "B" as
continuations of the prompt and records P(follow culture) renormalised over
the two letters, plus the probability mass the letters get.  A model that
scores by first token (``models.<m>.scoring: first_token``, a hosted API)
gives the letters' probabilities at the answer token after "Answer:" from the
provider's top-k; the column ``scoring`` names the strategy and
``letters_missing`` counts letters outside the top-k (P is NaN when both are).
"""

from __future__ import annotations

import re

import pandas as pd

from ..core.seeds import derive_seed
from ..core.shards import select
from ..models import ChatRequest, SamplingParams, ScoreItem
from .expand import conditions
from .labels import ALLOW, FOLLOW, UNKNOWN
from .prompts import render, system_prompt

# the log-prob mode's options (the answer format the decision prompt asks for) and their labels:
# a model that scores by first token (models.<m>.scoring) reads the letter after "Answer: "
LOGPROB_OPTIONS = ("Answer: A", "Answer: B")
LOGPROB_LABELS = ("A", "B")

_ANSWER = re.compile(r"answer\s*(?:is)?\s*[:\-]?\s*\(?\s*(?:option\s*)?([AB])\b", re.I)
_LEADING = re.compile(r"^\W*(?:[Oo]ption\s*)?([AB])\b(?:[.):\s]|$)")


def parse_letter(text: str) -> str:
    """The chosen letter A or B; raises ValueError if absent or contradictory."""
    found = _ANSWER.findall(text)
    letters = {f.upper() for f in found}
    if not letters:
        m = _LEADING.match(text.strip())
        if m:
            letters = {m.group(1).upper()}
    if not letters:
        low = text.lower()
        cands = {lab for lab, key in ((FOLLOW, "follow_culture"), (ALLOW, "allow_preference")) if key in low}
        if len(cands) == 1:
            return cands.pop()
        raise ValueError("no A/B answer found")
    if len(letters) > 1:
        raise ValueError(f"contradictory answers {sorted(letters)}")
    return letters.pop()


def decision_of(letter: str, culture_is_a: bool) -> str:
    if letter in (FOLLOW, ALLOW):
        return letter
    return FOLLOW if (letter == "A") == bool(culture_is_a) else ALLOW


def _person(country: str, age: str, gender: str, ablation: str, role: str) -> str:
    parts = []
    if ablation in ("full_demo", "age_only"):
        parts.append(f"{age}")
    if ablation in ("full_demo", "gender_only"):
        parts.append({"female": "woman", "male": "man"}[gender])
    if not parts:
        parts.append("person")
    elif parts[-1] in ("younger", "older"):
        parts.append("person")
    return f"a {' '.join(parts)} from {country} ({role})"


def roles_text(configuration: str) -> str:
    return {
        "C1": "The actor would rather follow the personal preference; the receiver expects the cultural norm.",
        "C2": ("The actor is ready to follow the cultural norm; the receiver would rather the actor follow the "
               "personal preference."),
        "C3": "Both the actor and the receiver would rather follow the personal preference.",
    }[configuration]


def build_messages(row: dict) -> list[dict]:
    culture, pref = row["culture_option"], row["preference_option"]
    a, b = (culture, pref) if row["culture_is_A"] else (pref, culture)
    user = render(
        "decision", scenario=row["scenario"], receiver_country=row["receiver_country"],
        actor_description=_person(row["actor_country"], row["actor_age"], row["actor_gender"],
                                  row["demo_ablation"], "actor"),
        receiver_description=_person(row["receiver_country"], row["receiver_age"], row["receiver_gender"],
                                     row["demo_ablation"], "receiver"),
        cultural_expectation=row["cultural_expectation"], personal_preference=row["personal_preference"],
        roles=roles_text(row["configuration"]), option_a=a, option_b=b)
    system = system_prompt(row["system_prompt"])
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def shard_conditions(instances: pd.DataFrame, configurations, demo_ablations, system_prompts, shard: int | str,
                     n_shards: int) -> pd.DataFrame:
    """The evaluation conditions (instance x configuration x ablation x system prompt) of one
    shard: a contiguous slice, so the shards in shard order restore the condition order."""
    instances = instances.assign(culture_is_A=instances["culture_is_A"].astype(str) == "True")
    return select(conditions(instances, configurations, demo_ablations, system_prompts), shard, n_shards)


def run_generation(conds: pd.DataFrame, client, sampling: SamplingParams,
                   max_attempts: int | None = None) -> pd.DataFrame:
    """Decisions by generation (``max_attempts``: the client's, ``retry.max_attempts``, unless given); each
    condition samples with its own seed, ``derive_seed(sampling.seed, "pact", "behaviour", condition_id)``."""
    rows = conds.to_dict("records")
    reqs = [ChatRequest.make(build_messages(r), sampling.with_seed(derive_seed(sampling.seed, "pact", "behaviour",
                                                                               r["condition_id"])))
            for r in rows]
    res = client.generate_parsed(reqs, parse_letter, max_attempts=max_attempts)
    out = conds[["condition_id"]].copy()
    out["valid"] = [r.valid for r in res]
    out["decision"] = [decision_of(r.value, row["culture_is_A"]) if r.valid else UNKNOWN
                       for r, row in zip(res, rows)]
    out["attempts"] = [r.n_attempts for r in res]
    out["raw_output"] = [r.raw.replace("\n", " ") for r in res]
    return out


def run_logprob(conds: pd.DataFrame, client) -> pd.DataFrame:
    rows = conds.to_dict("records")
    items = [ScoreItem.make(build_messages(r), list(LOGPROB_OPTIONS), labels=list(LOGPROB_LABELS)) for r in rows]
    scores = client.score_options(items)
    out = conds[["condition_id"]].copy()
    out["scoring"] = client.scoring  # full: whole "Answer: X" continuations; first_token: the letter's top-k
    out["letters_missing"] = [s.missing for s in scores]  # letters outside the provider's top-k (first_token)
    pa = [s.probs[0] for s in scores]
    out["p_follow_culture"] = [p if r["culture_is_A"] else 1 - p for p, r in zip(pa, rows)]
    out["letter_mass"] = [s.valid_mass for s in scores]
    out["logprob_A"] = [s.logprobs[0] for s in scores]
    out["logprob_B"] = [s.logprobs[1] for s in scores]
    return out


def decide(conds: pd.DataFrame, client, sampling: SamplingParams, logprob: bool) -> pd.DataFrame:
    """The conditions with their generated decisions and, with ``logprob``, the letter scores."""
    out = conds.merge(run_generation(conds, client, sampling), on="condition_id", validate="one_to_one")
    if logprob:
        out = out.merge(run_logprob(conds, client), on="condition_id", validate="one_to_one")
    return out
