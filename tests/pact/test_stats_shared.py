"""Shared statistics used by the PACT study: agreement, association, R glm."""

import numpy as np
import pandas as pd
import pytest

from cultalign.stats import agreement, association


def test_agreement_two_raters_by_hand():
    # 10 items, 2 raters: 8 agree (6 yes-yes, 2 no-no), 2 disagree
    a = [1, 1, 1, 1, 1, 1, 0, 0, 1, 0]
    b = [1, 1, 1, 1, 1, 1, 0, 0, 0, 1]
    r = pd.DataFrame({"r1": a, "r2": b})
    s = agreement.agreement_summary(r)
    assert s["observed_agreement"] == pytest.approx(0.8)
    # PABAK = 2*po - 1 for two categories
    assert s["pabak_brennan_prediger"] == pytest.approx(0.6)
    # positive agreement 2a/(2a+b+c) = 12/14
    assert s["positive_agreement"] == pytest.approx(12 / 14)
    # Cohen: pe = 0.7*0.7 + 0.3*0.3 = 0.58 -> (0.8-0.58)/0.42
    assert s["cohen_kappa"] == pytest.approx((0.8 - 0.58) / 0.42)
    # Gwet AC1 two raters: pi = mean prevalence of 1 = 0.7; pe = 2*0.7*0.3 = 0.42
    assert s["gwet_ac1"] == pytest.approx((0.8 - 0.42) / 0.58, abs=1e-4)


def test_agreement_ignores_single_rated_items():
    r = pd.DataFrame({"r1": [1, 1, np.nan, 0], "r2": [1, 0, 1, np.nan], "r3": [np.nan, 0, np.nan, 0]})
    s = agreement.agreement_summary(r)
    assert s["n_overlap_items"] == 3
    # pairs: item0 (1,1); item1 (1,0),(1,0),(0,0); item3 (0,0) -> 3/5
    assert s["observed_agreement"] == pytest.approx(3 / 5)


def test_chi_square_cramer_matches_hand():
    df = pd.DataFrame({"f": ["a"] * 50 + ["b"] * 50, "y": [1] * 40 + [0] * 10 + [1] * 10 + [0] * 40})
    res = association.chi_square_cramer(df, "f", "y")
    # 2x2: chi2 = N (ad-bc)^2 / (row*col products) = 100*(1600-100)^2/(50*50*50*50) = 36
    assert res["chi2"] == pytest.approx(36.0)
    assert res["cramers_v"] == pytest.approx(0.6)


@pytest.mark.slow
def test_r_glm_matches_statsmodels():
    import statsmodels.formula.api as smf
    import statsmodels.api as sm

    from cultalign.stats import rglm

    rng = np.random.default_rng(3)
    n = 400
    df = pd.DataFrame({"g": rng.choice(["a", "b", "c"], n), "h": rng.choice(["x", "y"], n),
                       "z": rng.normal(size=n)})
    eta = -0.3 + (df.g == "b") * 0.8 - (df.g == "c") * 0.5 + (df.h == "y") * 0.4 + 0.7 * df.z
    df["y"] = (rng.random(n) < 1 / (1 + np.exp(-eta))).astype(int)
    terms = ["g", "h", "z", "g:h"]
    co_r = rglm.fit_coefficients(df, "y", terms).set_index("term")
    fit = smf.glm("y ~ g + h + z + g:h", data=df, family=sm.families.Binomial()).fit()
    names = {"Intercept": "(Intercept)", "g[T.b]": "gb", "g[T.c]": "gc", "h[T.y]": "hy", "z": "z",
             "g[T.b]:h[T.y]": "gb:hy", "g[T.c]:h[T.y]": "gc:hy"}
    for sm_name, r_name in names.items():
        assert co_r.loc[r_name, "estimate"] == pytest.approx(fit.params[sm_name], rel=1e-5, abs=1e-7)
        assert co_r.loc[r_name, "std_error"] == pytest.approx(fit.bse[sm_name], rel=1e-4)
    # drop-one deviance of h (main effects only model) equals the statsmodels LR statistic
    d1 = rglm.fit_drop1(df, "y", ["g", "h", "z"]).set_index("term")
    full = smf.glm("y ~ g + h + z", data=df, family=sm.families.Binomial()).fit()
    red = smf.glm("y ~ g + z", data=df, family=sm.families.Binomial()).fit()
    assert d1.loc["h", "deviance_increase"] == pytest.approx(red.deviance - full.deviance, rel=1e-6)
    assert d1.loc["h", "df"] == 1
    assert set(d1.index) == {"g", "h", "z"}
    assert d1["q_value"].between(0, 1).all()
