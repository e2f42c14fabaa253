"""What the workflow asks of the PACT study (pact): the hooks of ``cultalign.studies``.

Planning (``plan``), the parse-time check of option scoring (``scoring_uses``,
``scoring_problems``), external inputs and stand-ins for preflight and the rehearsal
(``STAND_INS``, ``external_inputs``, ``input_active``, ``model_inputs``), hub folders
(``hub_folders``) and the real-data tables of ``rules/pact/real_data.smk`` (``REAL_DATA_TABLES``).
"""

from __future__ import annotations

import json
from typing import Iterable

import pandas as pd

from ..inputs import _get
from ..planning import Tokens, Work, _rows, _size, demo_dir
from ..scoring_check import ScoringUse
from ..studies import (every_input_active, no_external_inputs, no_hub_folders, no_model_inputs,
                       no_scoring_problems)

STAND_INS = [
    ("pact.human.prolific_export", lambda c: not _get(c, "pact.human.prolific_export"),
     "resources/demo/generated/pact/prolific_export_synthetic.csv",
     "null: rule pact_demo_prolific writes a seeded SYNTHETIC Prolific export"),
]
REAL_DATA_TABLES = ("results/pact/real_data/normad_labels.tsv", "results/pact/real_data/site_data.tsv")


def _pact(cfg: dict, sizes: dict, tk: Tokens) -> list[Work]:
    from . import behaviour, survey
    from .expand import PER_SCENARIO
    from .prompts import render

    P = cfg["pact"]
    cap = int(P["construct"]["max_field_chars"])
    f = tk.filled(cap)
    nd = pd.read_csv(demo_dir() / "pact" / "normad_demo.csv", dtype=str).iloc[0]
    ca = json.loads((demo_dir() / "pact" / "cultureatlas_demo.json").read_text(encoding="utf-8"))[0]
    n_normad = _size(sizes.get("normad_scenarios"), lambda: _rows(P["sources"]["normad"]["path"]),
                     "pact normad scenarios", "pact.normad_scenarios")
    n_ca_rows = _size(sizes.get("cultureatlas_rows"), lambda: _rows(P["sources"]["cultureatlas"]["path"]),
                      "pact cultureatlas rows", "pact.cultureatlas_rows")
    if P["construct"].get("filter_max_rows") is not None:
        n_ca_rows = min(n_ca_rows, int(P["construct"]["filter_max_rows"]))
    n_ca = int(sizes["cultureatlas_kept"]) if sizes.get("cultureatlas_kept") is not None else n_ca_rows
    cap_src = P["construct"].get("max_scenarios_per_source")
    per_source = {s: (min(n, int(cap_src)) if cap_src is not None else n)
                  for s, n in (("normad", n_normad), ("cultureatlas", n_ca))}
    combos = P["expansion"].get("combinations_per_scenario") or PER_SCENARIO
    instances = sum(per_source.values()) * int(combos)
    builder = P["construction_model"] or P["models"][0]
    c = P["construct"]
    work = [Work("pact", "pact_filter_cultureatlas", builder, 1, n_ca_rows,
                 tk.chat(render("filter_cultureatlas", country=ca["country"], keyword=ca["keyword"],
                                positive_sample=ca["positive_sample"])), int(c["filter"]["max_new_tokens"]),
                 f"CultureAtlas rows ({n_ca_rows})")]
    pref = {"normad": tk.chat(render("preference_normad", country=nd["Country"], gold_label=nd["Gold Label"],
                                     rule_of_thumb=nd["Rule-of-Thumb"], story=nd["Story"])),
            "cultureatlas": tk.chat(render("preference_cultureatlas", country=ca["country"], keyword=ca["keyword"],
                                           positive_sample=ca["positive_sample"],
                                           negative_sample=ca["negative_sample"]))}
    rewrite = tk.chat(render("rewrite", country=nd["Country"], cultural_expectation=f, culture_option=f,
                             personal_preference=f, preference_option=f, situation=nd["Story"]))
    judge = tk.chat(render("judge", scenario=f, cultural_expectation=f, culture_option=f, personal_preference=f,
                           preference_option=f))
    judge_model = P.get("judge_model") or builder
    for s, n in per_source.items():
        for k, (stage, p) in enumerate((("preference", pref[s]), ("rewrite", rewrite))):
            work.append(Work("pact", "pact_construct", builder, int(k == 0), n, p, int(c[stage]["max_new_tokens"]),
                             f"{s} scenarios ({n}) x {stage}"))
        work.append(Work("pact", "pact_judge", judge_model, 1, n, judge, int(c["judge"]["max_new_tokens"]),
                         f"{s} scenarios ({n}) x judge"))
    B = P["behaviour"]
    n_cond = len(B["configurations"]) * len(B["demo_ablations"]) * len(B["system_prompts"])
    row = {"culture_option": f, "preference_option": f, "culture_is_A": True, "scenario": f,
           "receiver_country": "India", "actor_country": "Japan", "actor_age": "younger", "actor_gender": "female",
           "receiver_age": "older", "receiver_gender": "male", "demo_ablation": "full_demo",
           "configuration": B["configurations"][0], "cultural_expectation": f, "personal_preference": f,
           "system_prompt": B["system_prompts"][0]}
    decision = tk.chat(behaviour.build_messages(row))
    letters = tk.options(list(behaviour.LOGPROB_OPTIONS)) if B["logprob"] else 0
    for m in list(P["models"]) + list(P.get("comparison_models") or []):
        work.append(Work("pact", "pact_behaviour", m, int(B["shards"]), instances * n_cond, decision,
                         int(B["max_new_tokens"]),
                         f"{instances:,} instances x {n_cond} conditions (generation)"))
        if B["logprob"]:
            work.append(Work("pact", "pact_behaviour", m, 0, instances * n_cond, decision + letters, 0,
                             f"{instances:,} instances x {n_cond} conditions (letter log-probs)"))
    H, A = P["human"], P["alignment"]
    countries = len(H.get("participant_countries") or [])
    responses = int(H["participants_per_country"]) * countries * int(H["scenarios_per_participant"])
    items = min(int(H["max_scenarios"]) if H.get("max_scenarios") is not None else responses, responses)
    per_item = responses / max(items, 1)  # respondents of an item: an upper bound of its persona profiles
    personas = min(per_item, A["max_personas_per_item"]) if A.get("max_personas_per_item") is not None else per_item
    receivers = min(per_item, 4)  # receiver age x gender shown
    n_q = len(survey.QUESTIONS)
    reqs = round(items * len(A["prompt_formats"]) * (receivers + personas) * n_q
                 + min(int(A["position_audit_items"]), items) * receivers * n_q)
    srow = {"culture_option": f, "preference_option": f, "culture_is_A": True, "persona_setting": "persona",
            "persona_age": "older", "persona_gender": "female", "persona_country": "India", "receiver_age": "older",
            "receiver_gender": "male", "prompt_format": A["prompt_formats"][0], "scenario": f,
            "scenario_country": "India", "question_type": next(iter(survey.QUESTIONS))}
    sp = tk.chat(survey.build_survey_messages(srow))
    for m in P["models"]:
        work.append(Work("pact", "pact_survey", m, 1, reqs, sp, int(A["max_new_tokens"]),
                         f"{items} items x {len(A['prompt_formats'])} formats x ({receivers:.0f} receivers + "
                         f"{personas:.1f} personas) x {n_q} questions + position audit"))
    return work


def _pact_uses(config: dict) -> Iterable[ScoringUse]:
    from .behaviour import LOGPROB_LABELS

    pact = config.get("pact") or {}
    if not (pact.get("behaviour") or {}).get("logprob"):
        return
    for key in ("models", "comparison_models"):
        for i, m in enumerate(pact.get(key) or []):
            yield ScoringUse("pact_behaviour", f"pact.behaviour.logprob (model at pact.{key}[{i}])", m,
                             tuple(LOGPROB_LABELS))


plan = _pact
scoring_uses = _pact_uses
scoring_problems = no_scoring_problems
external_inputs = no_external_inputs
input_active = every_input_active
model_inputs = no_model_inputs
hub_folders = no_hub_folders
