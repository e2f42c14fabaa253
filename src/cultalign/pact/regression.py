"""Item fixed-effects logistic regressions of following culture (appendix D),
fitted in R (glm binomial) via ``cultalign.stats.rglm``: drop-one deviance,
chi-square p-values, BH q-values.  Terms with fewer than two levels in the
data (e.g. ``model`` when one model is configured) cannot be estimated; they
are listed with status ``constant`` instead of being fitted.  Terms aliased
with the item fixed effects (a scenario's country is fixed per item) show
df 0 and deviance 0 in R's drop1 and are marked ``aliased``.
"""

from __future__ import annotations

import pandas as pd

from ..stats.rglm import fit_drop1


def drop1_table(data: pd.DataFrame, terms: list[str], outcome: str = "follow_culture", who: str = "") -> pd.DataFrame:
    d = data.dropna(subset=[outcome])
    usable, constant = [], []
    for t in terms:
        parts = t.split(":")
        if all(p in d.columns and d[p].nunique() >= 2 for p in parts):
            usable.append(t)
        else:
            constant.append(t)
    rows = []
    if usable and d[outcome].nunique() == 2:
        res = fit_drop1(d, outcome, usable)
        res["status"] = ["aliased" if (df == 0 or pd.isna(df)) else "fitted" for df in res["df"]]
        rows.append(res)
    else:
        constant = terms
    if constant:
        rows.append(pd.DataFrame({"term": constant, "status": "constant"}))
    out = pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(columns=["term", "status"])
    out.insert(0, "respondents", who)
    return out


def by_question(data: pd.DataFrame, terms: list[str], who: str) -> pd.DataFrame:
    """Separate fits for personal-choice and norm-judgment questions (tables 16-17) and one pooled fit."""
    parts = []
    for q, g in data.groupby("question_type"):
        t = drop1_table(g, [x for x in terms if "question_type" not in x], who=who)
        t.insert(1, "question_type", q)
        parts.append(t)
    pooled = drop1_table(data, terms, who=who)
    pooled.insert(1, "question_type", "pooled")
    parts.append(pooled)
    return pd.concat(parts, ignore_index=True)


def model_answers(surveys: pd.DataFrame) -> pd.DataFrame:
    """The survey answers the model regression uses: valid answers, position-audit pairs left out."""
    m = surveys[surveys["position_audit"].astype(str) != "True"].dropna(subset=["follow_culture"])
    m["follow_culture"] = m["follow_culture"].astype(int)
    return m
