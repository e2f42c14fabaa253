"""Expansion of validated scenarios into PACT instances and evaluation conditions.

Base instances (section 3.2, appendix A.5): every validated scenario x 3
actor-country relations (same / close / far to the receiver country, see
``geography``) x 16 actor/receiver age x gender combinations = 48 instances
per scenario (2,633 -> 126,384; 4,007 -> 192,336; 318,720 in all).

Evaluation conditions multiply the instances: preference configurations
C1 (actor personal / receiver norm), C2 (actor norm / receiver personal),
C3 (both personal); demographic ablations full_demo / age_only / gender_only /
no_demo; balance / no_balance system prompts.  The option order (whether the
culture-following option is A) is drawn per instance from the seed and
recorded.
"""

from __future__ import annotations

import itertools
from functools import lru_cache

import numpy as np
import pandas as pd

from ..core.seeds import derive_seed
from . import geography

AGES = ("younger", "older")
GENDERS = ("female", "male")
# actor_age, actor_gender, receiver_age, receiver_gender
DEMO_COMBOS = list(itertools.product(AGES, GENDERS, AGES, GENDERS))
PER_SCENARIO = len(geography.RELATIONS) * len(DEMO_COMBOS)  # 48

SCENARIO_COLUMNS = ("scenario_id", "source", "country", "situation", "scenario", "cultural_expectation",
                    "personal_preference", "preference_type", "culture_option", "preference_option", "passed",
                    "removal_reason")


def expected_instances(n_scenarios: int) -> int:
    return n_scenarios * PER_SCENARIO


@lru_cache(maxsize=65536)
def _actor(receiver: str, relation: str, seed: int, key: str) -> str:
    return geography.actor_country(receiver, relation, seed, key)


def expand(scenarios: pd.DataFrame, seed: int, combinations_per_scenario: int | None = None) -> pd.DataFrame:
    """One row per instance.  ``combinations_per_scenario`` (embedded default) keeps a
    seeded sample of the 48 relation x demographic combinations of each scenario."""
    n = len(scenarios)
    if n == 0:
        return pd.DataFrame(columns=["instance_id", "scenario_id", "relation", "actor_country"])
    rel = np.repeat(np.arange(3), len(DEMO_COMBOS))
    demo = np.tile(np.arange(len(DEMO_COMBOS)), 3)
    sidx = np.repeat(np.arange(n), PER_SCENARIO)
    ridx = np.tile(rel, n)
    didx = np.tile(demo, n)
    if combinations_per_scenario is not None and combinations_per_scenario < PER_SCENARIO:
        keep = np.zeros(len(sidx), dtype=bool)
        for i, sid in enumerate(scenarios["scenario_id"]):
            rng = np.random.default_rng(derive_seed(seed, "pact", "construct", "sample", sid))
            keep[i * PER_SCENARIO + rng.choice(PER_SCENARIO, combinations_per_scenario, replace=False)] = True
        sidx, ridx, didx = sidx[keep], ridx[keep], didx[keep]
    base = scenarios[[c for c in SCENARIO_COLUMNS if c in scenarios.columns]].reset_index(drop=True)
    out = base.iloc[sidx].reset_index(drop=True)
    out = out.rename(columns={"country": "receiver_country"})
    rels = np.array(geography.RELATIONS)[ridx]
    out.insert(1, "relation", rels)
    sids = out["scenario_id"].to_numpy()
    receivers = out["receiver_country"].to_numpy()
    actors = {}
    for s, r, rel in set(zip(sids, receivers, rels)):
        actors[(s, rel)] = _actor(r, rel, seed, s)
    out.insert(2, "actor_country", [actors[(s, rel)] for s, rel in zip(sids, rels)])
    combos = np.array(DEMO_COMBOS)[didx]
    for j, col in enumerate(("actor_age", "actor_gender", "receiver_age", "receiver_gender")):
        out[col] = combos[:, j]
    out.insert(0, "instance_id", [f"{s}-{rel}-{d:02d}" for s, rel, d in zip(sids, rels, didx)])
    out["culture_is_A"] = [bool(derive_seed(seed, "pact", "construct", "order", i) & 1) for i in out["instance_id"]]
    regions = {c: geography.region_of(c) for c in set(out["receiver_country"]) | set(out["actor_country"])}
    out["receiver_region"] = out["receiver_country"].map(regions)
    out["actor_region"] = out["actor_country"].map(regions)
    return out


def conditions(instances: pd.DataFrame, configurations, demo_ablations, system_prompts) -> pd.DataFrame:
    """Cross instances with the evaluation conditions (one row per prompt)."""
    grid = pd.DataFrame(list(itertools.product(configurations, demo_ablations, system_prompts)),
                        columns=["configuration", "demo_ablation", "system_prompt"])
    out = instances.merge(grid, how="cross")
    out.insert(0, "condition_id", out["instance_id"] + "|" + out["configuration"] + "|" + out["demo_ablation"]
               + "|" + out["system_prompt"])
    return out


def validated_scenarios(tables: list[pd.DataFrame], paths: list[str]) -> tuple[pd.DataFrame, dict]:
    """The kept items of the validated tables of the sources (in the order given) and, per source,
    how many were constructed, validated (kept) and removed."""
    parts, per_source = [], {}
    for v, path in zip(tables, paths):
        src = v["source"].iloc[0] if len(v) else str(path).split("/")[-1].split("_")[0]
        kept = v[v["kept"].astype(str) == "True"]
        per_source[src] = {"scenarios_constructed": len(v), "scenarios_validated": len(kept),
                           "scenarios_removed": len(v) - len(kept)}
        parts.append(kept)
    return pd.concat(parts, ignore_index=True), per_source


def construction_counts(per_source: dict[str, dict[str, int]], instances: pd.DataFrame) -> pd.DataFrame:
    """The count table the claims read (quantity, value)."""
    rows = []
    for src, d in per_source.items():
        for k, v in d.items():
            rows.append({"quantity": f"{src}_{k}", "value": int(v)})
    for src, g in instances.groupby("source"):
        rows.append({"quantity": f"{src}_instances", "value": len(g)})
        rows.append({"quantity": f"{src}_instances_full_expansion",
                     "value": expected_instances(g["scenario_id"].nunique())})
    rows.append({"quantity": "instances_total", "value": len(instances)})
    rows.append({"quantity": "instances_total_full_expansion",
                 "value": expected_instances(instances["scenario_id"].nunique()) if len(instances) else 0})
    return pd.DataFrame(rows)
