"""Logistic regressions of following culture (appendix D), fitted in R via
``cultalign.stats.rglm``: drop-one deviance, chi-square p-values, BH q-values.

Specification (``pact.regression.*``, docs/pact.md "Regressions"): the
scenario enters as a random intercept (lme4 ``glmer``, ``random_effects``), so
that scenario country, which is constant within a scenario, is a testable fixed
effect (with scenario as a fixed effect its drop-one test has 0 df); the model
regression has a prompt-format term; no-persona answers are kept, their persona
attributes set to the explicit level ``no_persona_level``, and dropping
``persona_setting`` drops the persona attributes nested in it (``nested``).
Terms with fewer than two levels in the data (e.g. ``model`` when one model is
configured) cannot be estimated; they are listed with status ``constant``
instead of being fitted.  Terms whose removal changes no parameter show df 0
and are marked ``aliased``.
"""

from __future__ import annotations

import pandas as pd

from ..stats.rglm import fit_drop1


PERSONA_FIELDS = ("persona_country", "persona_age", "persona_gender")


def drop1_table(data: pd.DataFrame, terms: list[str], outcome: str = "follow_culture", who: str = "",
                random: list[str] | None = None, nested: dict[str, list[str]] | None = None) -> pd.DataFrame:
    d = data.dropna(subset=[outcome])
    random = [g for g in (random or []) if g in d.columns and d[g].nunique() >= 2]
    usable, constant = [], []
    for t in terms:
        parts = t.split(":")
        if all(p in d.columns and d[p].nunique() >= 2 for p in parts):
            usable.append(t)
        else:
            constant.append(t)
    rows = []
    if usable and d[outcome].nunique() == 2:
        res = fit_drop1(d, outcome, usable, random=random, nested=nested)
        res["status"] = ["aliased" if (df == 0 or pd.isna(df)) else "fitted" for df in res["df"]]
        rows.append(res)
    else:
        constant = terms
    if constant:
        rows.append(pd.DataFrame({"term": constant, "status": "constant"}))
    out = pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(columns=["term", "status"])
    out.insert(0, "respondents", who)
    return out


def by_question(data: pd.DataFrame, terms: list[str], who: str, random: list[str] | None = None,
                nested: dict[str, list[str]] | None = None) -> pd.DataFrame:
    """Separate fits for personal-choice and norm-judgment questions (tables 16-17) and one pooled fit."""
    parts = []
    for q, g in data.groupby("question_type"):
        t = drop1_table(g, [x for x in terms if "question_type" not in x], who=who, random=random, nested=nested)
        t.insert(1, "question_type", q)
        parts.append(t)
    pooled = drop1_table(data, terms, who=who, random=random, nested=nested)
    pooled.insert(1, "question_type", "pooled")
    parts.append(pooled)
    return pd.concat(parts, ignore_index=True)


def model_answers(surveys: pd.DataFrame, no_persona_level: str = "no_persona") -> pd.DataFrame:
    """The survey answers the model regression uses: valid answers, position-audit pairs left out;
    the empty persona attributes of no-persona answers set to ``no_persona_level`` (else R drops
    those rows as missing and ``persona_setting`` is left with one level)."""
    m = surveys[surveys["position_audit"].astype(str) != "True"].dropna(subset=["follow_culture"]).copy()
    m["follow_culture"] = m["follow_culture"].astype(int)
    none = m["persona_setting"].astype(str) != "persona"
    for c in PERSONA_FIELDS:
        if c in m.columns:
            col = m[c].astype(object)
            blank = col.isna() | (col.astype(str).str.strip() == "")
            bad = blank & ~none
            if bad.any():
                i = int(bad.idxmax())
                req = m.loc[i, "request_id"] if "request_id" in m else "?"
                raise ValueError(f"survey answers: persona row {i} (request_id {req}) has an empty {c}")
            m[c] = col.where(~none, no_persona_level)
    return m
