"""Logistic regression in R (``glm``, binomial) through rpy2, with drop-one
deviance tests (``drop1(test = "Chisq")``) and Benjamini-Hochberg q-values
(``p.adjust(method = "BH")``).

``fit_drop1(data, outcome, terms)`` fits ``outcome ~ term1 + term2 + ...``
(interaction terms as ``a:b``) and returns one row per term: degrees of
freedom, deviance increase when the term is dropped, AIC, chi-square p-value
and BH q-value.  ``fit_coefficients`` returns the coefficient table, which a
test compares with statsmodels on the same data.
"""

from __future__ import annotations

import pandas as pd


def _r():
    import rpy2.robjects as ro
    from rpy2.robjects import pandas2ri
    from rpy2.robjects.conversion import localconverter

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
            df[c] = df[c].astype(str)
    return df


def _fit(df: pd.DataFrame, outcome: str, terms: list[str]):
    ro, pandas2ri, localconverter = _r()
    with localconverter(ro.default_converter + pandas2ri.converter):
        rdf = ro.conversion.py2rpy(df)
    ro.globalenv["cultalign_df"] = rdf
    for c in df.columns:
        if c != outcome and not pd.api.types.is_numeric_dtype(df[c]):
            ro.r(f"cultalign_df${c} <- factor(cultalign_df${c})")
    formula = f"{outcome} ~ " + " + ".join(terms)
    ro.r(f"cultalign_fit <- glm({formula}, family = binomial(), data = cultalign_df)")
    return ro, pandas2ri, localconverter


def fit_drop1(data: pd.DataFrame, outcome: str, terms: list[str]) -> pd.DataFrame:
    """Drop-one deviance table of an R binomial glm, with BH q-values over the terms."""
    df = _prepare(data, outcome, terms)
    ro, pandas2ri, localconverter = _fit(df, outcome, terms)
    ro.r(
        "cultalign_d1 <- drop1(cultalign_fit, test = 'Chisq');"
        "cultalign_d1 <- cultalign_d1[-1, , drop = FALSE];"
        "cultalign_d1$q_value <- p.adjust(cultalign_d1[['Pr(>Chi)']], method = 'BH');"
        "cultalign_d1$term <- rownames(cultalign_d1)"
    )
    with localconverter(ro.default_converter + pandas2ri.converter):
        out = ro.conversion.rpy2py(ro.r("cultalign_d1"))
    out = out.rename(columns={"Df": "df", "Deviance": "deviance", "AIC": "aic", "LRT": "deviance_increase",
                              "Pr(>Chi)": "p_value"})
    out = out[["term", "df", "deviance_increase", "deviance", "aic", "p_value", "q_value"]].reset_index(drop=True)
    out["n"] = len(df)
    out["null_deviance"] = float(ro.r("cultalign_fit$null.deviance")[0])
    out["residual_deviance"] = float(ro.r("deviance(cultalign_fit)")[0])
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
