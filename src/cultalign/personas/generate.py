"""Norm -> scenario -> question generation with self-checks and bounded regeneration.

Every model call is an independent single-turn request with its own derived
seed (no conversation memory).  After each generation the model checks its
own output: the check is a Yes/No question whose two answers are scored with
``ModelClient.score_options``; P(Yes) below ``threshold`` triggers a
regeneration with a new seed, at most ``max_regenerations`` times.  The last
candidate is kept either way and the table records ``check_p_yes``,
``check_passed`` and ``regenerations``; JSON that never validates is kept with
``valid=False`` and its raw text.  No generated field has a length bound in its JSON schema (a
``maxLength`` makes a schema-constrained backend close the string early, cutting the text, or a
validating one reject it): ``max_new_tokens`` bounds a degenerate output, and the post-check
``over_cap`` marks each row's fields longer than their ``personas.generation.max_chars`` cap
(``fields_over_cap``, ``longest_field_chars``); such rows are kept and counted.  Only ``bound``
(config ``personas.generation.bound_fields``, for a small demo model that otherwise runs past its
token budget) puts the caps into the schema.  ``check_scoring`` names how the model scored
the answers (``full``, or ``first_token`` for a hosted API: P(Yes) from the
top-k of the first answer token, NaN - a failed check - when neither answer
is in it).
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any, Callable

import pandas as pd

from cultalign.core.seeds import derive_seed
from cultalign.models import ChatRequest, SamplingParams, ScoreItem

from .common import LEVELS, TRAIT_HINTS, TRAIT_NAMES, TRAITS
from .prompts import PROMPTS

log = logging.getLogger(__name__)

REGEN_SEED_STRIDE = 7_919
# the post-check columns of every generated table (:func:`over_cap`)
CAP_COLUMNS = ("longest_field_chars", "fields_over_cap")


def _text(min_len: int, max_len: int | None = None) -> dict:
    """A generated text field: a lower bound, and an upper one only when ``max_len`` is given (see the
    module docstring)."""
    return {"type": "string", "minLength": min_len, **({"maxLength": int(max_len)} if max_len else {})}


def over_cap(row: dict, caps: dict[str, int]) -> dict:
    """The post-check of a generated row's text fields against their caps (field -> characters):
    ``fields_over_cap`` names the fields longer than their cap ("+"-joined, "" when none) and
    ``longest_field_chars`` is the length of the longest field."""
    lengths = {f: len(str(row.get(f, "") or "")) for f in caps}
    return {"longest_field_chars": max(lengths.values(), default=0),
            "fields_over_cap": "+".join(f for f, n in lengths.items() if n > int(caps[f]))}


# JSON keys of the five graded answers.  The model layer sends the schema with
# sorted keys and the grammar emits properties in that order, so the names sort
# in the order the answers must be written: question first, then high -> low.
ANSWER_KEYS = {"high": "r1_high", "moderately_high": "r2_fairly_high", "medium": "r3_medium",
               "moderately_low": "r4_fairly_low", "low": "r5_low"}


def norm_schema(max_chars: int | None = None) -> dict:
    """JSON schema of a norm; no length bound unless ``max_chars`` (``bound_fields``)."""
    return {"type": "object", "properties": {"norm": _text(20, max_chars)}, "required": ["norm"],
            "additionalProperties": False}


def scenario_schema(max_chars: int | None = None) -> dict:
    """JSON schema of a scenario; no length bound unless ``max_chars`` (``bound_fields``)."""
    return {"type": "object", "properties": {"scenario": _text(30, max_chars)}, "required": ["scenario"],
            "additionalProperties": False}


def question_schema(question_chars: int | None = None, answer_chars: int | None = None) -> dict:
    """Question plus five graded answers, in writing order; no length bound unless the caps are given
    (``bound_fields``).  Unbounded, an output longer than the token budget ends as unparseable JSON:
    retried, then kept invalid and counted."""
    props = {"question": _text(20, question_chars), **{ANSWER_KEYS[lv]: _text(5, answer_chars) for lv in LEVELS}}
    assert list(props) == sorted(props), "answer keys must sort in writing order"
    return {"type": "object", "properties": props, "required": list(props), "additionalProperties": False}


GENERATION_TEMPLATES = ("generator_system", "norm", "norm_check", "scenario", "scenario_check", "question",
                        "question_check", "answers_check")


@dataclass(frozen=True)
class GenSettings:
    """Sampling and self-check settings of one generation stage (config ``personas.generation``:
    temperature, max_new_tokens.<stage>, max_regenerations, check_threshold)."""

    temperature: float
    max_new_tokens: int
    max_regenerations: int
    threshold: float

    def sampling(self, seed: int) -> SamplingParams:
        return SamplingParams.from_config({"temperature": self.temperature, "max_new_tokens": self.max_new_tokens},
                                          seed)


def _checked_generation(client, jobs: list[dict], schema: dict, settings: GenSettings,
                        checks: Callable[[dict, dict], list[ScoreItem]]) -> list[dict]:
    """Run jobs ({'prompt', 'seed', ...}) through generate_json + self-checks with regeneration.

    Returns one record per job with the accepted (or last) value and the check bookkeeping.
    """
    system = PROMPTS.text("generator_system")
    results: list[dict | None] = [None] * len(jobs)
    pending = list(range(len(jobs)))
    for rnd in range(settings.max_regenerations + 1):
        if not pending:
            break
        reqs = [ChatRequest.make(jobs[i]["prompt"], settings.sampling(jobs[i]["seed"] + rnd * REGEN_SEED_STRIDE),
                                 system=system) for i in pending]
        parsed = client.generate_json(reqs, schema)
        check_items, owners = [], []
        for i, pr in zip(pending, parsed):
            if pr.valid:
                its = checks(jobs[i], pr.value)
                check_items.extend(its)
                owners.append((i, len(its)))
        scores = client.score_options(check_items) if check_items else []
        p_by_job: dict[int, list[float]] = {}
        pos = 0
        for i, n in owners:
            p_by_job[i] = [s.probs[0] for s in scores[pos : pos + n]]
            pos += n
        still = []
        last = rnd == settings.max_regenerations
        for i, pr in zip(pending, parsed):
            ps = p_by_job.get(i, [])
            passed = pr.valid and all(p >= settings.threshold for p in ps)
            if passed or last:
                results[i] = {"value": pr.value if pr.valid else None, "valid": pr.valid,
                              "raw_invalid": "" if pr.valid else pr.raw, "json_attempts": pr.n_attempts,
                              "check_p_yes": json.dumps([round(p, 4) for p in ps]),
                              "check_passed": bool(passed), "regenerations": rnd,
                              "check_scoring": client.scoring}
            else:
                still.append(i)
        pending = still
    return results  # type: ignore[return-value]


# the self-check answers; they are their own labels (a first_token model reads them from the top-k)
CHECK_LABELS = ("Yes", "No")


def _yes_no(prompt: str) -> ScoreItem:
    return ScoreItem.make(prompt, list(CHECK_LABELS), labels=list(CHECK_LABELS))


def generate_norms(client, retrieve: Callable[[str], list[dict]], country: str, country_name: str,
                   n_norms: int, topics: list[str], seed: int, settings: GenSettings,
                   max_chars: int, bound: bool = False) -> pd.DataFrame:
    """``n_norms`` norms, each from its own retrieval query (topic) and its own seeded call;
    a norm longer than ``max_chars`` characters is kept and marked (:func:`over_cap`)."""
    jobs = []
    for j in range(n_norms):
        topic = topics[j % len(topics)]
        hits = retrieve(f"{topic} in {country_name}: customs, values and expected behaviour")
        context = "\n".join(f"[{k + 1}] {' '.join(h['text'].split())}" for k, h in enumerate(hits))
        jobs.append({"norm_id": j, "topic": topic, "context": context,
                     "chunks": json.dumps([f"{h['source']}#{h['chunk_id']}" for h in hits]),
                     "prompt": PROMPTS.render("norm", country=country_name, context=context, topic=topic),
                     "seed": derive_seed(seed, "personas", "generate", "norm", country, j)})

    def checks(job, value):
        return [_yes_no(PROMPTS.render("norm_check", country=country_name, context=job["context"], norm=value["norm"]))]

    res = _checked_generation(client, jobs, norm_schema(max_chars if bound else None), settings, checks)
    rows = []
    for job, r in zip(jobs, res):
        rows.append({"country": country, "norm_id": job["norm_id"], "topic": job["topic"],
                     "norm": " ".join(r["value"]["norm"].split()) if r["valid"] else "",
                     "retrieved_chunks": job["chunks"], **{k: v for k, v in r.items() if k != "value"}})
        rows[-1].update(over_cap(rows[-1], {"norm": max_chars}))
    return pd.DataFrame(rows)


def generate_scenarios(client, norms: pd.DataFrame, country_name: str, n_scenarios: int, seed: int,
                       settings: GenSettings, max_chars: int, max_norms: int | None,
                       bound: bool = False) -> pd.DataFrame:
    """``n_scenarios`` scenarios per valid norm (invalid norms are skipped and stay counted in the norms
    table); one longer than ``max_chars`` characters is kept and marked (:func:`over_cap`);
    ``max_norms`` limits scenario writing to the first valid norms (a small demo; None: all)."""
    jobs = []
    valid = norms[norms["valid"].astype(bool)]
    for _, nr in (valid.head(max_norms) if max_norms else valid).iterrows():
        for s in range(n_scenarios):
            jobs.append({"country": nr["country"], "norm_id": int(nr["norm_id"]), "norm": nr["norm"], "s": s,
                         "prompt": PROMPTS.render("scenario", country=country_name, norm=nr["norm"]),
                         "seed": derive_seed(seed, "personas", "generate", "scenario", nr["country"], nr["norm_id"],
                                             s)})

    def checks(job, value):
        return [_yes_no(PROMPTS.render("scenario_check", country=country_name, norm=job["norm"],
                               scenario=value["scenario"]))]

    res = _checked_generation(client, jobs, scenario_schema(max_chars if bound else None), settings, checks)
    rows = []
    for sid, (job, r) in enumerate(zip(jobs, res)):
        rows.append({"country": job["country"], "norm_id": job["norm_id"], "scenario_id": sid,
                     "norm": job["norm"],
                     "scenario": " ".join(r["value"]["scenario"].split()) if r["valid"] else "",
                     **{k: v for k, v in r.items() if k != "value"}})
        rows[-1].update(over_cap(rows[-1], {"scenario": max_chars}))
    return pd.DataFrame(rows, columns=["country", "norm_id", "scenario_id", "norm", "scenario", "valid",
                                       "raw_invalid", "json_attempts", "check_p_yes", "check_passed",
                                       "regenerations", *CAP_COLUMNS])


def generate_questions(client, scenarios: pd.DataFrame, country_name: str, seed: int, settings: GenSettings,
                       question_chars: int, answer_chars: int, traits=TRAITS, bound: bool = False) -> pd.DataFrame:
    """One question with five graded answers per valid scenario and trait; a question longer than
    ``question_chars`` characters or an answer longer than ``answer_chars`` is kept and marked
    (:func:`over_cap`)."""
    jobs = []
    for _, sr in scenarios[scenarios["valid"].astype(bool)].iterrows():
        for t in traits:
            jobs.append({"country": sr["country"], "scenario_id": int(sr["scenario_id"]),
                         "scenario": sr["scenario"], "trait": t,
                         "prompt": PROMPTS.render("question", scenario=sr["scenario"], country=country_name,
                                          trait_name=TRAIT_NAMES[t], trait_hint=TRAIT_HINTS[t]),
                         "seed": derive_seed(seed, "personas", "generate", "question", sr["country"],
                                             sr["scenario_id"], t)})

    def checks(job, value):
        t = job["trait"]
        return [_yes_no(PROMPTS.render("question_check", scenario=job["scenario"], question=value["question"],
                               trait_name=TRAIT_NAMES[t], trait_hint=TRAIT_HINTS[t])),
                _yes_no(PROMPTS.render("answers_check", question=value["question"], trait_name=TRAIT_NAMES[t],
                               **{lv: value[ANSWER_KEYS[lv]] for lv in LEVELS}))]

    schema = question_schema(question_chars, answer_chars) if bound else question_schema()
    res = _checked_generation(client, jobs, schema, settings, checks)
    caps = {"question": question_chars, **{lv: answer_chars for lv in LEVELS}}
    rows = []
    for qid, (job, r) in enumerate(zip(jobs, res)):
        v: dict[str, Any] = r["value"] or {}
        rows.append({"country": job["country"], "scenario_id": job["scenario_id"], "question_id": qid,
                     "trait": job["trait"], "trait_name": TRAIT_NAMES[job["trait"]], "scenario": job["scenario"],
                     "question": " ".join(v.get("question", "").split()),
                     **{lv: " ".join(v.get(ANSWER_KEYS[lv], "").split()) for lv in LEVELS},
                     **{k: x for k, x in r.items() if k != "value"}})
        rows[-1].update(over_cap(rows[-1], caps))
    return pd.DataFrame(rows, columns=["country", "scenario_id", "question_id", "trait", "trait_name", "scenario",
                                       "question", *LEVELS, "valid", "raw_invalid", "json_attempts",
                                       "check_p_yes", "check_passed", "regenerations", *CAP_COLUMNS])


def generation_counts(df: pd.DataFrame, upstream: pd.DataFrame | None = None) -> dict:
    """Counts of a generated table for its sidecar: rows, valid, invalid, check_passed, regenerated,
    the valid rows with a field over its cap (``fields_over_cap``, and per field ``over_cap_<field>``)
    and the invalid rows of the table it was generated from (``upstream_invalid``)."""
    v = df["valid"].astype(bool) if len(df) else pd.Series([], dtype=bool)
    counts = {"rows": int(len(df)), "valid": int(v.sum()), "invalid": int((~v).sum())}
    if "fields_over_cap" in df.columns:
        over = df.loc[v, "fields_over_cap"].fillna("").astype(str)
        counts["fields_over_cap"] = int((over != "").sum())
        for f, n in over[over != ""].str.split("+").explode().value_counts().sort_index().items():
            counts[f"over_cap_{f}"] = int(n)
    if "check_passed" in df.columns and len(df):
        counts["check_passed"] = int(df["check_passed"].astype(bool).sum())
        counts["regenerated"] = int((df["regenerations"] > 0).sum())
    if upstream is not None:
        counts["upstream_invalid"] = int((~upstream["valid"].astype(bool)).sum())
    return counts
