"""Contingency tests: chi-square test of independence with Cramer's V."""

from __future__ import annotations

import math

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
