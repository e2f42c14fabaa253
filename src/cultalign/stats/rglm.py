"""Logistic regression in R (``glm``, binomial) through rpy2, with drop-one
deviance tests (``drop1(test = "Chisq")``) and Benjamini-Hochberg q-values
(``p.adjust(method = "BH")``).

``fit_drop1(data, outcome, terms, random=..., nested=...)`` fits
``outcome ~ term1 + term2 + ...`` (interaction terms as ``a:b``; with
``random``, a mixed model ``glmer(... + (1 | g))`` from lme4 with a random
intercept per grouping factor ``g``) and returns one row per term: degrees of
freedom, deviance increase when the term is dropped, AIC, chi-square p-value
and BH q-value.  Dropping a term also drops the interactions that contain it
(marginality) and the terms listed under it in ``nested`` (e.g. the persona
attributes, which exist only in the persona setting); the row's df counts
every parameter removed and ``dropped`` names the terms.  Deviance is
-2 log-likelihood, the same for glm and glmer.  ``fit_coefficients`` returns the coefficient table, which a
test compares with statsmodels on the same data.
"""

from __future__ import annotations

import pandas as pd


_LOADED = []


def _r():
    import rpy2.robjects as ro
    from rpy2.robjects import pandas2ri
    from rpy2.robjects.conversion import localconverter

    if not _LOADED:
        # load R's LAPACK module and lme4 while the library path rpy2 set on import still holds
        # (a later caller may have restored the environment, and R loads both lazily)
        ro.r("invisible(chol2inv(matrix(1))); suppressPackageStartupMessages(library(lme4))")
        _LOADED.append(True)
    return ro, pandas2ri, localconverter


def _prepare(data: pd.DataFrame, outcome: str, terms: list[str]) -> pd.DataFrame:
    cols = sorted({outcome, *[t for term in terms for t in term.split(":")]})
    missing = [c for c in cols if c not in data.columns]
    if missing:
        raise KeyError(f"regression columns missing from data: {missing}")
    df = data[cols].dropna().copy()
    df[outcome] = df[outcome].astype(int)
    for c in cols:
        if c != outcome and not pd.api.types.is_numeric_dtype(df[c]):
            df[c] = [str(v) for v in df[c]]  # plain str: numpy.str_ values confuse rpy2's conversion
    return df


def _formula(outcome: str, terms: list[str], random: list[str]) -> str:
    rhs = list(terms) + [f"(1 | {g})" for g in random]
    return f"{outcome} ~ " + (" + ".join(rhs) if rhs else "1")


def _send(df: pd.DataFrame, outcome: str):
    ro, pandas2ri, localconverter = _r()
    with localconverter(ro.default_converter + pandas2ri.converter):
        rdf = ro.conversion.py2rpy(df)
    ro.globalenv["cultalign_df"] = rdf
    for c in df.columns:
        if c != outcome and not pd.api.types.is_numeric_dtype(df[c]):
            ro.r(f"cultalign_df${c} <- factor(cultalign_df${c})")
    return ro, pandas2ri, localconverter


def _fit_r(ro, outcome: str, terms: list[str], random: list[str], name: str) -> tuple[float, int, float]:
    """Fit one model in R as ``name``; return (-2 logLik, number of parameters, AIC)."""
    formula = _formula(outcome, terms, random)
    if random:
        ro.r(f"{name} <- glmer({formula}, family = binomial(), data = cultalign_df, "
             "control = glmerControl(optimizer = 'bobyqa', calc.derivs = FALSE))")
    else:
        ro.r(f"{name} <- glm({formula}, family = binomial(), data = cultalign_df)")
    ll = ro.r(f"logLik({name})")
    return -2.0 * float(ll[0]), int(ro.r(f"attr(logLik({name}), 'df')")[0]), float(ro.r(f"AIC({name})")[0])


def _fit(df: pd.DataFrame, outcome: str, terms: list[str], random: list[str] | None = None):
    ro, pandas2ri, localconverter = _send(df, outcome)
    _fit_r(ro, outcome, terms, list(random or []), "cultalign_fit")
    return ro, pandas2ri, localconverter


def dropped_with(term: str, terms: list[str], nested: dict[str, list[str]] | None = None) -> list[str]:
    """The terms removed when ``term`` is dropped: itself, the terms nested under it, and every
    interaction containing any of their variables (in the order of ``terms``)."""
    base = [term] + [t for t in (nested or {}).get(term, []) if t in terms]
    variables = {v for t in base for v in t.split(":")}
    return [t for t in terms if t in base or (":" in t and variables & set(t.split(":")))]


def fit_drop1(data: pd.DataFrame, outcome: str, terms: list[str], random: list[str] | None = None,
              nested: dict[str, list[str]] | None = None) -> pd.DataFrame:
    """Drop-one deviance table of an R binomial glm (or lme4 glmer with random intercepts for
    ``random``), likelihood-ratio chi-square p-values, BH q-values over the terms."""
    random = list(random or [])
    df = _prepare(data, outcome, list(terms) + random)
    ro, pandas2ri, localconverter = _send(df, outcome)
    full_dev, full_k, _ = _fit_r(ro, outcome, terms, random, "cultalign_fit")
    rows = []
    for t in terms:
        gone = dropped_with(t, terms, nested)
        dev, k, aic = _fit_r(ro, outcome, [x for x in terms if x not in gone], random, "cultalign_red")
        d_df = full_k - k
        lrt = max(dev - full_dev, 0.0)
        p = float(ro.r["pchisq"](lrt, d_df, **{"lower.tail": False})[0]) if d_df > 0 else float("nan")
        rows.append({"term": t, "df": d_df, "deviance_increase": lrt, "deviance": dev, "aic": aic, "p_value": p,
                     "dropped": "+".join(gone)})
    out = pd.DataFrame(rows)
    ok = out["p_value"].notna()
    out["q_value"] = float("nan")
    if ok.any():
        q = ro.r["p.adjust"](ro.FloatVector(out.loc[ok, "p_value"].tolist()), method="BH")
        out.loc[ok, "q_value"] = list(q)
    out = out[["term", "df", "deviance_increase", "deviance", "aic", "p_value", "q_value", "dropped"]]
    out["n"] = len(df)
    out["random_effects"] = "+".join(random)
    null_dev, _, _ = _fit_r(ro, outcome, [], [], "cultalign_null")
    out["null_deviance"] = null_dev
    out["residual_deviance"] = full_dev
    return out


def fit_coefficients(data: pd.DataFrame, outcome: str, terms: list[str]) -> pd.DataFrame:
    """Coefficient table (term, estimate, std_error) of the R fit."""
    df = _prepare(data, outcome, terms)
    ro, pandas2ri, localconverter = _fit(df, outcome, terms)
    ro.r("cultalign_co <- as.data.frame(summary(cultalign_fit)$coefficients);"
         "cultalign_co$term <- rownames(cultalign_co)")
    with localconverter(ro.default_converter + pandas2ri.converter):
        co = ro.conversion.rpy2py(ro.r("cultalign_co"))
    co = co.rename(columns={"Estimate": "estimate", "Std. Error": "std_error"})
    return co[["term", "estimate", "std_error"]].reset_index(drop=True)


def r_version() -> str:
    ro, _, _ = _r()
    return str(ro.r("R.version.string")[0])
