"""The human survey items asked to a model (section 5.3, appendix F): one prompt per item x
question frame x persona setting x prompt format, plus the option-position audit pairs.  The
answers feed ``alignment``."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..core.seeds import derive_seed
from ..models import ChatRequest, SamplingParams
from .behaviour import decision_of, parse_letter
from .labels import FOLLOW, UNKNOWN
from .prompts import render

QUESTIONS = {
    "personal": "If you were the actor, what would you personally do?",
    "norm": "What would most people in this situation consider socially appropriate?",
}
PROMPT_FORMATS = ("compact_json", "survey_form", "natural_paragraph", "delimited_metadata", "minimal_direct")


PROFILE = ["participant_country", "participant_age", "participant_gender"]
RECEIVER = ["receiver_age", "receiver_gender"]


def respondent_views(resp: pd.DataFrame) -> pd.DataFrame:
    """The distinct (participant profile, receiver shown) pairs among one item's respondents, with
    the number of participants behind each (``n_participants``)."""
    who = "participant" if "participant" in resp.columns else None
    cols = PROFILE + RECEIVER
    per = resp.drop_duplicates(subset=[who, *cols] if who else cols)
    return (per.groupby(cols, dropna=False).size().rename("n_participants").reset_index()
            .sort_values(cols, kind="stable").reset_index(drop=True))


def sample_views(views: pd.DataFrame, k: int | None, seed: int, item: str) -> pd.DataFrame:
    """All views (``k`` None, the paper: one persona per respondent profile of the item), or a
    seeded sample of ``k`` stratified by participant country (each country's share of the item's
    profiles, at least one per country while ``k`` allows; remainders to the largest fractions)."""
    if k is None or len(views) <= int(k):
        return views
    k = int(k)
    rng = np.random.default_rng(derive_seed(seed, "pact", "alignment", "survey_personas", item))
    sizes = views.groupby("participant_country").size()
    quota = sizes / sizes.sum() * k
    take = np.minimum(np.floor(quota).astype(int), sizes)
    if k >= len(sizes):
        take = np.maximum(take, 1)
    while take.sum() > k:  # the minimum of one per country can overshoot: trim the largest
        take[take.idxmax()] -= 1
    for c in (quota - np.floor(quota)).sort_values(ascending=False, kind="stable").index:
        if take.sum() >= k:
            break
        if take[c] < sizes[c]:
            take[c] += 1
    parts = [g.iloc[np.sort(rng.choice(len(g), size=int(take[c]), replace=False))]
             for c, g in views.groupby("participant_country") if take[c] > 0]
    return pd.concat(parts).sort_values(PROFILE + RECEIVER, kind="stable").reset_index(drop=True)


def survey_requests(human: pd.DataFrame, scenarios: pd.DataFrame, prompt_formats: list[str],
                    max_personas_per_item: int | None, position_audit_items: int, seed: int) -> pd.DataFrame:
    """One row per model prompt: item x receiver shown x question x persona setting x prompt format
    (x option order for the first ``position_audit_items`` items, the position audit).

    Each prompt shows the receiver the humans saw: the no-persona setting asks the item once per
    distinct receiver among its respondents; the persona setting once per respondent profile
    (participant country, age, gender) with the receiver that profile saw (``respondent_views``),
    all of them when ``max_personas_per_item`` is None, else a seeded sample stratified by
    participant country (``sample_views``).  ``n_participants`` counts the respondents behind a
    persona prompt.  ``prompt_formats[0]`` is the main format; the option order of an item is
    drawn from the seed."""
    sc = scenarios.set_index("scenario_id")
    rows = []
    items = human[["scenario_id", "scenario_country"]].drop_duplicates().sort_values("scenario_id")
    audit_n = int(position_audit_items)
    for n_item, it in enumerate(items.itertuples()):
        s = sc.loc[it.scenario_id]
        resp = human[human.scenario_id == it.scenario_id]
        views = respondent_views(resp)
        personas = sample_views(views, max_personas_per_item, seed, it.scenario_id)
        receivers = views.groupby(RECEIVER, dropna=False)["n_participants"].sum().reset_index()
        settings = ([("no_persona", None, r) for r in receivers.itertuples(index=False)]
                    + [("persona", p, p) for p in personas.itertuples(index=False)])
        base_order = bool(derive_seed(seed, "pact", "alignment", "survey_order", it.scenario_id) & 1)
        orders = [base_order, not base_order] if n_item < audit_n else [base_order]
        for fmt in prompt_formats:
            for setting, p, rec in settings:
                for q in QUESTIONS:
                    for order in orders:
                        if order != base_order and (fmt != prompt_formats[0] or setting != "no_persona"):
                            continue  # the audit pairs use the main format, no persona
                        rows.append({
                            "scenario_id": it.scenario_id, "scenario_country": it.scenario_country,
                            "scenario": s["scenario"], "culture_option": s["culture_option"],
                            "preference_option": s["preference_option"],
                            "receiver_age": rec.receiver_age, "receiver_gender": rec.receiver_gender,
                            "question_type": q, "persona_setting": setting,
                            "persona_country": p.participant_country if p is not None else "",
                            "persona_age": p.participant_age if p is not None else "",
                            "persona_gender": p.participant_gender if p is not None else "",
                            "n_participants": int(rec.n_participants),
                            "prompt_format": fmt, "culture_is_A": order, "position_audit": order != base_order,
                        })
    out = pd.DataFrame(rows)
    out.insert(0, "request_id", [f"r{i:06d}" for i in range(len(out))])
    return out


def build_survey_messages(r: dict) -> list[dict]:
    a, b = ((r["culture_option"], r["preference_option"]) if r["culture_is_A"]
            else (r["preference_option"], r["culture_option"]))
    persona = ""
    if r["persona_setting"] == "persona":
        persona = (f"Answer as a {r['persona_age']} {r['persona_gender']} person from {r['persona_country']}.\n")
    receiver = f"a {r['receiver_age']} {'woman' if r['receiver_gender'] == 'female' else 'man'}"
    text = render(
        f"survey_{r['prompt_format']}", persona=persona, scenario=r["scenario"], scenario_country=r["scenario_country"],
        receiver_description=receiver, question=QUESTIONS[r["question_type"]], option_a=a, option_b=b)
    return [{"role": "user", "content": text}]


def run_survey(reqs: pd.DataFrame, client, sampling: SamplingParams, max_attempts: int | None = None) -> pd.DataFrame:
    """The model's answers (``max_attempts``: the client's, ``retry.max_attempts``, unless given)."""
    rows = reqs.to_dict("records")
    res = client.generate_parsed([ChatRequest.make(build_survey_messages(r), sampling) for r in rows], parse_letter,
                                 max_attempts=max_attempts)
    out = reqs.copy()
    out["valid"] = [r.valid for r in res]
    out["decision"] = [decision_of(r.value, row["culture_is_A"]) if r.valid else UNKNOWN for r, row in zip(res, rows)]
    out["follow_culture"] = [1.0 if d == FOLLOW else (np.nan if d == UNKNOWN else 0.0) for d in out["decision"]]
    out["attempts"] = [r.n_attempts for r in res]
    out["raw_output"] = [r.raw.replace("\n", " ") for r in res]
    return out
