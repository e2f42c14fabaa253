"""PACT at paper scale without models (figures, not a timed test).

    .venv/bin/python bench/pact_aggregates.py [--scale 1.0] [--out bench/out/pact_aggregates.json]

1. generate a synthetic 6,640-scenario input (2,633 NormAd-like + 4,007 CultureAtlas-like rows;
   SYNTHETIC, countries from the NormAd country list when ../shared/data is present);
2. expand to 318,720 instances (cultalign.pact.expand, the workflow's code) and cross with the
   configurations C1-C3;
3. simulate decisions (FOLLOW_CULTURE / ALLOW_PREFERENCE / ~1% UNKNOWN) for 6 models x 2 prompt
   conditions (balance / no_balance) from a seeded logistic model;
4. compute the section-4 aggregates (allow-preference rate, valid and UNKNOWN counts per factor
   level, and per model x configuration) with the workflow's code path
   (cultalign.pact.analysis.count_rates_many: category codes, np.bincount), and the same
   group-bys directly in DuckDB in the same process; check they agree.

Reports wall time per step, peak RSS, and the ratio pandas-aggregation / DuckDB (goal <= 1.5):
``ratio_pandas_over_duckdb`` from the first run of each (ours runs first, in a fresh process),
``ratio_best_pandas_over_best_duckdb`` from the best of ``--repeat`` alternating runs; process
CPU seconds and the load average are recorded too (the development machine is shared).
DuckDB is not a project dependency: install it to run the comparison (pip install duckdb==2.0.1).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time
from pathlib import Path

import numpy as np
import pandas as pd

import common

common.prepare_env()
ROOT = common.ROOT

from cultalign.pact import expand as pexp  # noqa: E402
from cultalign.pact.analysis import count_rates_many  # noqa: E402  (imported before any timing)

FACTORS = ["model", "configuration", "system_prompt", "source", "relation", "receiver_region", "actor_region",
           "receiver_country", "actor_age", "actor_gender", "receiver_age", "receiver_gender"]
MODELS = ["llama", "gpt", "deepseek", "olmo", "qwen", "mistral"]


def countries() -> list[str]:
    f = ROOT.parent / "shared" / "data" / "normad" / "normad_country_label_distribution_ki2025.csv"
    if f.exists():
        return pd.read_csv(f)["Country"].tolist()
    return ["India", "Brazil", "Japan", "Kenya", "Germany", "Fiji", "Peru", "Egypt", "Sweden", "Mexico"]


def synthetic_scenarios(scale: float, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n_n, n_c = round(2633 * scale), round(4007 * scale)
    cs = countries()
    return pd.DataFrame({"scenario_id": [f"syn-{i}" for i in range(n_n + n_c)],
                         "source": ["normad"] * n_n + ["cultureatlas"] * n_c,
                         "country": rng.choice(cs, n_n + n_c),
                         "preference_type": rng.choice(["convenience", "habit", "value_style"], n_n + n_c)})


def simulate(inst: pd.DataFrame, seed: int) -> pd.DataFrame:
    """instances x C1-C3 x 6 models x 2 prompts, categorical columns, simulated decisions."""
    rng = np.random.default_rng(seed)
    cat = {c: inst[c].astype("category") for c in ("source", "relation", "receiver_region", "actor_region",
                                                    "receiver_country", "actor_age", "actor_gender",
                                                    "receiver_age", "receiver_gender")}
    n_inst = len(inst)
    reps = 3 * len(MODELS) * 2
    idx = np.tile(np.arange(n_inst), reps)
    conf = np.repeat(np.arange(3), n_inst).astype(np.int8)
    conf = np.tile(conf, len(MODELS) * 2)
    model = np.tile(np.repeat(np.arange(len(MODELS)), 3 * n_inst), 2).astype(np.int8)
    prompt = np.repeat(np.arange(2), 3 * n_inst * len(MODELS)).astype(np.int8)
    d = pd.DataFrame({k: pd.Categorical.from_codes(v.cat.codes.to_numpy()[idx], v.cat.categories)
                      for k, v in cat.items()})
    d["model"] = pd.Categorical.from_codes(model, MODELS)
    d["configuration"] = pd.Categorical.from_codes(conf, ["C1", "C2", "C3"])
    d["system_prompt"] = pd.Categorical.from_codes(prompt, ["balance", "no_balance"])
    base = np.array([-0.4, -0.9, -1.9, -2.0, -2.1, -4.9])[model] + np.array([-0.6, 0.0, 0.8])[conf]
    base = base + 0.1 * (d["actor_age"].cat.codes.to_numpy() == 1) + 0.05 * prompt
    allow = rng.random(len(d)) < 1 / (1 + np.exp(-base))
    unknown = rng.random(len(d)) < 0.01
    # decision codes: 0 FOLLOW_CULTURE, 1 ALLOW_PREFERENCE, 2 UNKNOWN
    d["decision"] = pd.Categorical.from_codes(np.where(unknown, 2, allow.astype(np.int8)).astype(np.int8),
                                              ["FOLLOW_CULTURE", "ALLOW_PREFERENCE", "UNKNOWN"])
    return d


def pandas_aggregates(d: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The workflow's aggregation (cultalign.pact.analysis.count_rates_many, as in rates_by)."""
    key_sets = [f if isinstance(f, list) else [f] for f in FACTORS + [["model", "configuration"]]]
    return {"|".join(ks): t for ks, t in zip(key_sets, count_rates_many(d, key_sets))}


def duckdb_aggregates(d: pd.DataFrame) -> dict[str, pd.DataFrame]:
    import duckdb

    con = duckdb.connect()
    con.register("d", d)
    out = {}
    for f in FACTORS + [["model", "configuration"]]:
        keys = f if isinstance(f, list) else [f]
        k = ", ".join(keys)
        out["|".join(keys)] = con.execute(
            f"SELECT {k}, count(*) AS n, sum(CASE WHEN decision <> 'UNKNOWN' THEN 1 ELSE 0 END) AS n_valid, "
            f"sum(CASE WHEN decision = 'ALLOW_PREFERENCE' THEN 1 ELSE 0 END) AS n_allow FROM d GROUP BY {k}").df()
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=20261129)
    ap.add_argument("--out", default=str(ROOT / "bench" / "out" / "pact_aggregates.json"))
    ap.add_argument("--repeat", type=int, default=3, help="aggregation runs per side (alternating)")
    a = ap.parse_args()
    res: dict = {"scale": a.scale, "synthetic": True, "load_average_1min_start": os.getloadavg()[0]}
    t = time.perf_counter()
    sc = synthetic_scenarios(a.scale, a.seed)
    inst = pexp.expand(sc, a.seed)
    res["scenarios"] = len(sc)
    res["instances"] = len(inst)
    res["expand_s"] = time.perf_counter() - t
    t = time.perf_counter()
    d = simulate(inst, a.seed)
    res["decision_rows"] = len(d)
    res["simulate_s"] = time.perf_counter() - t
    # each side --repeat times, alternating, so both meet the same machine load; wall and process
    # CPU seconds (CPU time counts all threads: DuckDB runs multi-threaded, ours single-threaded)
    mine = ref = None
    times: dict[str, list] = {"pandas_wall": [], "pandas_cpu": [], "duckdb_wall": [], "duckdb_cpu": []}
    try:
        import duckdb  # noqa: F401
        have_duckdb = True
    except ImportError:
        have_duckdb = False
        res["note"] = "duckdb not installed: no comparison"
    for _ in range(a.repeat):
        t, c = time.perf_counter(), time.process_time()
        out = pandas_aggregates(d)
        times["pandas_wall"].append(time.perf_counter() - t)
        times["pandas_cpu"].append(time.process_time() - c)
        mine = mine if mine is not None else out
        if have_duckdb:
            t, c = time.perf_counter(), time.process_time()
            out = duckdb_aggregates(d)
            times["duckdb_wall"].append(time.perf_counter() - t)
            times["duckdb_cpu"].append(time.process_time() - c)
            ref = ref if ref is not None else out
    res["repeat"] = a.repeat
    res["aggregate_pandas_s"] = times["pandas_wall"][0]
    res["aggregate_pandas_best_s"] = min(times["pandas_wall"])
    res["aggregate_duckdb_s"] = times["duckdb_wall"][0] if have_duckdb else None
    if have_duckdb:
        res["aggregate_duckdb_best_s"] = min(times["duckdb_wall"])
        res["ratio_pandas_over_duckdb"] = res["aggregate_pandas_s"] / res["aggregate_duckdb_s"]
        res["ratio_best_pandas_over_best_duckdb"] = res["aggregate_pandas_best_s"] / res["aggregate_duckdb_best_s"]
        agree = True
        for k, g in mine.items():
            keys = k.split("|")
            r = ref[k].astype({c: str for c in keys}).set_index(keys).sort_index()
            m = g.astype({c: str for c in keys}).set_index(keys).sort_index()
            agree &= bool(m.index.equals(r.index))
            cols = ["n", "n_valid", "n_allow"]
            agree &= bool((m[cols].to_numpy() == r[cols].to_numpy()).all())
        res["duckdb_results_agree"] = agree
    res["times_s"] = {k: [round(x, 4) for x in v] for k, v in times.items()}
    res["load_average_1min_end"] = os.getloadavg()[0]
    res["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    res["allow_rate_by_model"] = mine["model"].set_index("model")["allow_rate"].round(4).to_dict()
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(res, indent=2))
    print(json.dumps(res, indent=2))


if __name__ == "__main__":
    main()
