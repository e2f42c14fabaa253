"""Contingency tests and bootstrap intervals for binary outcome rates."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy.stats import chi2_contingency
from scipy.stats.contingency import association


def chi_square_cramer(df: pd.DataFrame, factor: str, outcome: str) -> dict:
    """Chi-square test of independence of ``factor`` and ``outcome`` with Cramer's V."""
    table = pd.crosstab(df[factor], df[outcome])
    if table.shape[0] < 2 or table.shape[1] < 2:
        return {"factor": factor, "levels": int(table.shape[0]), "n": int(table.to_numpy().sum()),
                "chi2": math.nan, "dof": 0, "p_value": math.nan, "cramers_v": math.nan}
    chi2, p, dof, _ = chi2_contingency(table.to_numpy(), correction=False)
    v = association(table.to_numpy(), method="cramer", correction=False)
    return {"factor": factor, "levels": int(table.shape[0]), "n": int(table.to_numpy().sum()),
            "chi2": float(chi2), "dof": int(dof), "p_value": float(p), "cramers_v": float(v)}


def bootstrap_rate_ci(values, n_boot: int = 1000, level: float = 0.95, seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap CI of the mean of 0/1 (or probability) values."""
    x = np.asarray(values, dtype=float)
    if len(x) == 0:
        return (math.nan, math.nan)
    rng = np.random.default_rng(seed)
    means = rng.choice(x, size=(n_boot, len(x)), replace=True).mean(axis=1)
    a = (1 - level) / 2
    return float(np.quantile(means, a)), float(np.quantile(means, 1 - a))


def benjamini_hochberg(p) -> np.ndarray:
    """BH q-values (NaN p-values stay NaN and are not counted)."""
    p = np.asarray(p, dtype=float)
    q = np.full_like(p, np.nan)
    ok = ~np.isnan(p)
    pv = p[ok]
    m = len(pv)
    if m == 0:
        return q
    order = np.argsort(pv)
    ranked = pv[order] * m / np.arange(1, m + 1)
    ranked = np.minimum.accumulate(ranked[::-1])[::-1]
    out = np.empty(m)
    out[order] = np.minimum(ranked, 1.0)
    q[ok] = out
    return q
