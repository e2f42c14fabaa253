"""Summary of the CulturalPersonas release run (rule ``personas_release_summary``).

Model-free (runs in ``envs/stats.yaml``): trait scores per cell, the run's
wall time, token and validity totals, and the labelled extrapolation to the
full release, from the tables that ``release_eval`` wrote.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd

from .instruments import read_items


def trait_scores(mcs: pd.DataFrame, oeg: pd.DataFrame) -> pd.DataFrame:
    """Mean expected Likert score (1-5) per model x method x country x instrument x priming x trait over
    the valid items, with the item counts behind it."""
    rows = []
    for method, df in (("mcs", mcs), ("oeg", oeg)):
        if df is None or not len(df):
            continue
        df = df.copy()
        df["valid"] = df["valid"].astype(bool)
        for key, g in df.groupby(["model", "country", "instrument", "priming", "trait"], sort=True):
            ok = g[g["valid"]]
            rows.append({"method": method, **dict(zip(["model", "country", "instrument", "priming", "trait"], key)),
                         "n_items": len(g), "n_valid": len(ok),
                         "mean_score": float(ok["expected_score"].mean()) if len(ok) else math.nan,
                         "sd_item_score": float(ok["expected_score"].std(ddof=1)) if len(ok) > 1 else math.nan})
    cols = ["method", "model", "country", "instrument", "priming", "trait", "n_items", "n_valid", "mean_score",
            "sd_item_score"]
    return pd.DataFrame(rows, columns=cols)


def run_totals(cells: pd.DataFrame, jobs: pd.DataFrame) -> pd.DataFrame:
    """One row per model x method (and an all-methods row): wall time, tokens, rates, invalid counts, and
    the cost of the full release extrapolated from the measured per-item times (labelled as such)."""
    rows = []
    for (model, method), g in cells.groupby(["model", "method"], sort=True):
        wall = float(g["wall_s"].sum())
        per_item = g["wall_s"] / g["n_items"].clip(lower=1)
        full_s = float((per_item * g["n_full"]).sum())
        row = {"model": model, "method": method, "cells": len(g), "items": int(g["n_items"].sum()),
               "items_full": int(g["n_full"].sum()), "valid": int(g["valid"].sum()),
               "invalid": int(g["invalid"].sum()), "wall_s": wall,
               "extrapolated_full_s": full_s if int(g["n_items"].sum()) < int(g["n_full"].sum()) else wall}
        if method == "mcs":
            tok = int(g["tokens_scored"].sum())
            row.update(tokens_scored=tok, tokens_scored_per_s=tok / wall if wall else math.nan,
                       valid_mass_mean=float((g["valid_mass_mean"] * g["n_items"]).sum() / g["n_items"].sum()),
                       valid_mass_min=float(g["valid_mass_min"].min()))
        else:
            gen = int(g["generated_tokens"].sum())
            gs = float(g["generation_s"].sum())
            row.update(generated_tokens=gen, generated_tokens_per_s=gen / gs if gs else math.nan,
                       generation_s=gs, mapping_s=float(g["mapping_s"].sum()), retried=int(g["retried"].sum()),
                       truncated=int(g["truncated"].sum()),
                       **{k: int(g[k].sum()) for k in ("unfinished", "trimmed") if k in g.columns})
        rows.append(row)
    out = pd.DataFrame(rows)
    if len(jobs):
        load = float(jobs["load_s"].sum())
        out = pd.concat([out, pd.DataFrame([{"model": "all", "method": "model load (per job)", "cells": len(jobs),
                                             "wall_s": load, "extrapolated_full_s": load}])], ignore_index=True)
    return out


def release_summary(mcs_files, oeg_files) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, dict]:
    """(trait scores, per-cell run summary, run totals, sidecar counts) of the release run; the inputs
    come in (table, cells, job) triples per model x country."""

    def triples(files):
        files = list(files)
        return [files[i : i + 3] for i in range(0, len(files), 3)]

    tables, cells, jobs = {"mcs": [], "oeg": []}, [], []
    for kind, files in (("mcs", mcs_files), ("oeg", oeg_files)):
        for table, cell, job in triples(files):
            tables[kind].append(read_items(table))
            cells.append(pd.read_csv(cell, sep="\t"))
            j = json.loads(Path(job).read_text())
            jobs.append({"file": job, **{k: j[k] for k in ("method", "wall_s", "load_s")}})
    mcs = pd.concat(tables["mcs"], ignore_index=True) if tables["mcs"] else pd.DataFrame()
    oeg = pd.concat([t for t in tables["oeg"] if len(t)], ignore_index=True) if any(
        len(t) for t in tables["oeg"]) else pd.DataFrame()
    traits = trait_scores(mcs, oeg)
    cells_df = pd.concat(cells, ignore_index=True)
    jobs_df = pd.DataFrame(jobs)
    totals = run_totals(cells_df, jobs_df)
    jobs_wall = float(jobs_df["wall_s"].sum()) if len(jobs_df) else math.nan
    totals = pd.concat([totals, pd.DataFrame([{"model": "all", "method": "all jobs (wall, incl. load)",
                                               "cells": len(jobs_df), "wall_s": jobs_wall}])], ignore_index=True)
    return traits, cells_df, totals, {"cells": len(cells_df), "jobs": len(jobs_df)}
