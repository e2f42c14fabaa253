"""LLM construction stages: CultureAtlas filtering, preference generation,
scenario rewrite and LLM-judge validation.  All use ``generate_json`` (schema
constrained decoding + validation + bounded retries); every row keeps
``valid`` and the attempt count, and the count tables say how many rows each
stage kept, removed or could not parse.
"""

from __future__ import annotations

import logging

import pandas as pd

from ..models import ChatRequest, SamplingParams
from .prompts import render

log = logging.getLogger(__name__)

FILTER_SCHEMA = {
    "type": "object",
    "properties": {"category": {"type": "string",
                                "enum": ["social_actionable", "factual", "non_social", "non_actionable"]}},
    "required": ["category"],
    "additionalProperties": False,
}
PREFERENCE_TYPES = ["convenience", "habit", "value_style"]
# Generated text fields of stage 1.  Their length is not part of the schema (a maxLength there
# makes a schema-constrained backend cut a long field short, or a validating one drop the item
# unseen); ``max_new_tokens`` bounds degenerate outputs, and fields longer than
# ``pact.construct.max_field_chars`` are counted and reported (``fields_over_cap``,
# removal reason ``rule:field_over_cap``).
TEXT_FIELDS = ("cultural_expectation", "personal_preference", "culture_option", "preference_option")
PREFERENCE_SCHEMA = {
    "type": "object",
    "properties": {
        "cultural_expectation": {"type": "string", "minLength": 3},
        "personal_preference": {"type": "string", "minLength": 3},
        "preference_type": {"type": "string", "enum": PREFERENCE_TYPES},
        "culture_option": {"type": "string", "minLength": 2},
        "preference_option": {"type": "string", "minLength": 2},
    },
    "required": ["cultural_expectation", "personal_preference", "preference_type", "culture_option",
                 "preference_option"],
    "additionalProperties": False,
}
REWRITE_SCHEMA = {
    "type": "object",
    "properties": {"scenario": {"type": "string", "minLength": 10, "maxLength": 400}},
    "required": ["scenario"],
    "additionalProperties": False,
}
JUDGE_SCHEMA = {
    "type": "object",
    "properties": {"scenario_clear": {"type": "boolean"}, "preference_plausible": {"type": "boolean"},
                   "distinct": {"type": "boolean"}},
    "required": ["scenario_clear", "preference_plausible", "distinct"],
    "additionalProperties": False,
}


def _run(client, prompts: list[str], schema: dict, params: SamplingParams, max_attempts: int | None):
    """Schema-constrained generation (``max_attempts``: the client's, ``retry.max_attempts``, unless given)."""
    reqs = [ChatRequest.make(p, params) for p in prompts]
    return client.generate_json(reqs, schema, max_attempts=max_attempts)


def filter_cultureatlas(df: pd.DataFrame, client, sampling: SamplingParams,
                        max_attempts: int | None = None, max_rows: int | None = None) -> pd.DataFrame:
    """Classify each row; keep only social, actionable norms.  Unparseable rows are
    kept out (``keep`` False) with reason ``invalid_output`` and counted.  ``max_rows``:
    only the first rows in file order (a cut-down run; None = every row, the paper)."""
    if max_rows is not None:
        df = df.head(max_rows)
    prompts = [render("filter_cultureatlas", country=r.country, keyword=r.keyword, positive_sample=r.positive_sample)
               for r in df.itertuples()]
    res = _run(client, prompts, FILTER_SCHEMA, sampling, max_attempts)
    out = df.copy()
    out["valid"] = [r.valid for r in res]
    out["attempts"] = [r.n_attempts for r in res]
    out["category"] = [r.value["category"] if r.valid else "invalid_output" for r in res]
    out["keep"] = out["category"] == "social_actionable"
    out["raw_output"] = [r.raw for r in res]
    return out


def filter_counts(filtered: pd.DataFrame) -> pd.DataFrame:
    rows = [{"quantity": "candidate_rows", "value": len(filtered)},
            {"quantity": "kept_rows", "value": int(filtered["keep"].sum())},
            {"quantity": "discarded_rows", "value": int((~filtered["keep"]).sum())},
            {"quantity": "kept_countries", "value": int(filtered.loc[filtered["keep"], "country"].nunique())},
            {"quantity": "candidate_countries", "value": int(filtered["country"].nunique())},
            {"quantity": "invalid_outputs", "value": int((~filtered["valid"]).sum())}]
    for cat, n in filtered["category"].value_counts().items():
        rows.append({"quantity": f"category_{cat}", "value": int(n)})
    return pd.DataFrame(rows)


def situation_of(row) -> str:
    return row["Story"] if row["source"] == "normad" else row["positive_sample"]


def generate_preferences(df: pd.DataFrame, client, sampling: SamplingParams,
                         max_attempts: int | None = None, max_field_chars: int | None = None) -> pd.DataFrame:
    """Stage 1: cultural expectation, contrasting preference (typed), two parallel options.
    ``fields_over_cap`` names the text fields longer than ``max_field_chars`` (None: no cap);
    ``longest_field_chars`` is the length of the longest one."""
    rows = []
    prompts = []
    for r in df.to_dict("records"):
        if r["source"] == "normad":
            prompts.append(render(
                "preference_normad", country=r["country"], rule_of_thumb=r["Rule-of-Thumb"], story=r["Story"],
                gold_label=r["Gold Label"]))
        else:
            prompts.append(render(
                "preference_cultureatlas", country=r["country"], keyword=r["keyword"],
                positive_sample=r["positive_sample"],
                negative_sample=r["negative_sample"]))
    res = _run(client, prompts, PREFERENCE_SCHEMA, sampling, max_attempts)
    for r, pr in zip(df.to_dict("records"), res):
        v = pr.value if pr.valid else {}
        rows.append({
            "scenario_id": r["scenario_id"], "source": r["source"], "country": r["country"],
            "situation": situation_of(r),
            "cultural_expectation": v.get("cultural_expectation", ""),
            "personal_preference": v.get("personal_preference", ""),
            "preference_type": v.get("preference_type", ""),
            "culture_option": v.get("culture_option", ""),
            "preference_option": v.get("preference_option", ""),
            "valid": pr.valid, "attempts": pr.n_attempts, "raw_output": pr.raw,
        })
        lengths = {f: len(str(rows[-1][f])) for f in TEXT_FIELDS}
        rows[-1]["longest_field_chars"] = max(lengths.values())
        rows[-1]["fields_over_cap"] = "+".join(
            f for f, n in lengths.items() if max_field_chars is not None and n > int(max_field_chars))
    return pd.DataFrame(rows)


def rewrite_scenarios(df: pd.DataFrame, client, sampling: SamplingParams,
                      max_attempts: int | None = None) -> pd.DataFrame:
    """Stage 3 rewrite: a neutral scenario that sets up the choice.  Rows whose preference
    stage was invalid are passed through (``rewrite_valid`` False) and removed at validation."""
    out = df.copy()
    ok = out["valid"].to_numpy()
    prompts = [render("rewrite", country=r.country, situation=r.situation,
                      cultural_expectation=r.cultural_expectation, personal_preference=r.personal_preference,
                      culture_option=r.culture_option, preference_option=r.preference_option)
               for r in out[ok].itertuples()]
    res = _run(client, prompts, REWRITE_SCHEMA, sampling, max_attempts) if prompts else []
    out["scenario"] = ""
    out["rewrite_valid"] = False
    out["rewrite_attempts"] = 0
    idx = out.index[ok]
    out.loc[idx, "scenario"] = [r.value["scenario"] if r.valid else "" for r in res]
    out.loc[idx, "rewrite_valid"] = [r.valid for r in res]
    out.loc[idx, "rewrite_attempts"] = [r.n_attempts for r in res]
    out["rewrite_raw_output"] = ""
    out.loc[idx, "rewrite_raw_output"] = [r.raw for r in res]
    return out


def judge_items(df: pd.DataFrame, client, sampling: SamplingParams, max_attempts: int | None = None) -> pd.DataFrame:
    """LLM-judge validation.  ``passed`` needs a valid preference, a valid rewrite and all three
    checks true; ``removal_reason`` records why an item is removed."""
    out = df.copy()
    ok = (out["valid"] & out["rewrite_valid"]).to_numpy()
    prompts = [render("judge", scenario=r.scenario, cultural_expectation=r.cultural_expectation,
                      personal_preference=r.personal_preference, culture_option=r.culture_option,
                      preference_option=r.preference_option)
               for r in out[ok].itertuples()]
    res = _run(client, prompts, JUDGE_SCHEMA, sampling, max_attempts) if prompts else []
    for k in ("scenario_clear", "preference_plausible", "distinct", "judge_valid"):
        out[k] = False
    out["judge_raw_output"] = ""
    idx = out.index[ok]
    for i, r in zip(idx, res):
        out.at[i, "judge_valid"] = r.valid
        out.at[i, "judge_raw_output"] = r.raw
        if r.valid:
            for k in ("scenario_clear", "preference_plausible", "distinct"):
                out.at[i, k] = bool(r.value[k])
    reasons = []
    for r in out.itertuples():
        if not r.valid:
            reasons.append("preference_invalid_output")
        elif not r.rewrite_valid:
            reasons.append("rewrite_invalid_output")
        elif not r.judge_valid:
            reasons.append("judge_invalid_output")
        elif _same(r.culture_option, r.preference_option) or _same(r.cultural_expectation, r.personal_preference):
            reasons.append("rule:options_not_distinct")
        elif str(getattr(r, "fields_over_cap", "") or ""):
            reasons.append("rule:field_over_cap")
        else:
            failed = [k for k in ("scenario_clear", "preference_plausible", "distinct") if not getattr(r, k)]
            reasons.append("flagged:" + "+".join(failed) if failed else "")
    out["removal_reason"] = reasons
    out["passed"] = out["removal_reason"] == ""
    return out


def _same(a: str, b: str) -> bool:
    norm = lambda x: " ".join(str(x).lower().split()).strip(" .")  # noqa: E731
    return norm(a) == norm(b)


def validation_counts(judged: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for src, g in judged.groupby("source"):
        rows += [{"source": src, "quantity": "scenarios_in", "value": len(g)},
                 {"source": src, "quantity": "passed", "value": int(g["passed"].sum())},
                 {"source": src, "quantity": "removed", "value": int((~g["passed"]).sum())}]
        for reason, n in g.loc[~g["passed"], "removal_reason"].value_counts().items():
            rows.append({"source": src, "quantity": f"removed_{reason}", "value": int(n)})
        if "fields_over_cap" in g.columns:  # every item with a field over the cap, removed or kept
            over = g["fields_over_cap"].fillna("").astype(str) != ""
            rows += [{"source": src, "quantity": "fields_over_cap", "value": int(over.sum())},
                     {"source": src, "quantity": "longest_field_chars", "value": int(g["longest_field_chars"].max())}]
    return pd.DataFrame(rows)


def usable_rows(df: pd.DataFrame, max_scenarios: int | None) -> pd.DataFrame:
    """The rows construction starts from: CultureAtlas rows the filter kept (all NormAd rows),
    the first ``max_scenarios`` of them when set."""
    if "keep" in df.columns:
        df = df[df["keep"].astype(str) == "True"]
    return df.head(max_scenarios) if max_scenarios else df


def prepare_source(df: pd.DataFrame, client, source: str, preference: SamplingParams, rewrite: SamplingParams,
                   max_field_chars: int | None = None) -> pd.DataFrame:
    """Preference generation and rewrite of one source's rows by the construction model (section 3.2,
    stages 1 and 3): the items the judge (``judge_source``) validates."""
    # the model layer logs each stage's progress (done/total requests, tokens/s, ETA)
    log.info("construct %s, stage 1 of 2: preferences for %d rows", source, len(df))
    prefs = generate_preferences(df, client, preference, max_field_chars=max_field_chars)
    log.info("construct %s, stage 2 of 2: rewrites of %d items", source, len(prefs))
    return rewrite_scenarios(prefs, client, rewrite)


def _as_bool(col: pd.Series) -> pd.Series:
    """A boolean column, also when read back from a TSV as text."""
    return col.astype(str) == "True"


def judge_source(rewritten: pd.DataFrame, judge_client, source: str, judge: SamplingParams,
                 judge_action: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """LLM-judge validation of one source's prepared items by the judge model (appendix A.5):
    the judged items (``kept``: passed, or with ``judge_action`` keep_flagged every item with a
    valid preference and rewrite) and the validation counts (with ``fields_over_cap``: items with
    a text field longer than the cap ``prepare_source`` applied)."""
    rewritten = rewritten.assign(valid=_as_bool(rewritten["valid"]),
                                 rewrite_valid=_as_bool(rewritten["rewrite_valid"]))
    log.info("judge %s: %d items", source, len(rewritten))
    judged = judge_items(rewritten, judge_client, judge)
    judged["kept"] = judged["passed"]
    if judge_action == "keep_flagged":
        judged["kept"] = judged["valid"] & judged["rewrite_valid"]
    counts = validation_counts(judged)
    counts = pd.concat([counts, pd.DataFrame([{"source": source, "quantity": "kept",
                                               "value": int(judged["kept"].sum())}])], ignore_index=True)
    return judged, counts


def construct_source(df: pd.DataFrame, client, source: str, preference: SamplingParams, rewrite: SamplingParams,
                     judge: SamplingParams, judge_action: str, max_field_chars: int | None = None,
                     judge_client=None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``prepare_source`` by ``client`` then ``judge_source`` by ``judge_client`` (None: ``client``)."""
    rewritten = prepare_source(df, client, source, preference, rewrite, max_field_chars=max_field_chars)
    return judge_source(rewritten, judge_client or client, source, judge, judge_action)
