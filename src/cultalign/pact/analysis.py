"""Section 4 / appendix B analyses: allow-preference rates per factor with
bootstrap CIs and valid/UNKNOWN counts, chi-square tests with Cramer's V,
demographic contrasts (younger - older, female - male) and region deltas.
"""

from __future__ import annotations

import pandas as pd

from ..stats.association import bootstrap_rate_ci, chi_square_cramer
from .behaviour import ALLOW, UNKNOWN

FACTORS = ["model", "model_kind", "configuration", "preference_type", "preference_strength", "receiver_country",
           "actor_country", "receiver_region", "actor_region", "actor_age", "actor_gender", "receiver_age",
           "receiver_gender", "age_pair", "gender_pair", "relation", "source", "system_prompt", "demo_ablation"]

# author-style keyword bins (appendix B.7 uses keyword-based analysis groupings)
STRENGTH_KEYWORDS = {
    "strong": ("health", "diet", "allerg", "safety", "privacy", "private", "comfort", "pain", "religio", "vegetar",
               "caffeine", "sleep", "hygien"),
    "low_stakes": ("convenien", "faster", "quick", "easier", "time", "busy", "hand", "simple", "lazy"),
}


def preference_strength(text: str) -> str:
    low = str(text).lower()
    for label, keys in STRENGTH_KEYWORDS.items():
        if any(k in low for k in keys):
            return label
    return "other"


def decisions_table(conds: pd.DataFrame, gen: pd.DataFrame, model: str, model_kind: str,
                    logprob: pd.DataFrame | None = None) -> pd.DataFrame:
    """Join conditions with decisions (and log-prob P(follow culture) when given)."""
    d = conds.merge(gen, on="condition_id", how="left", validate="one_to_one")
    if logprob is not None:
        d = d.merge(logprob, on="condition_id", how="left", validate="one_to_one")
    d.insert(0, "model", model)
    d.insert(1, "model_kind", model_kind)
    d["allow"] = (d["decision"] == ALLOW).astype(float).where(d["decision"] != UNKNOWN)
    d["age_pair"] = d["actor_age"] + "->" + d["receiver_age"]
    d["gender_pair"] = d["actor_gender"] + "->" + d["receiver_gender"]
    d["preference_strength"] = d["personal_preference"].map(preference_strength)
    return d


def binomial_bootstrap_ci(k: int, n: int, n_boot: int, seed: int, level: float = 0.95) -> tuple[float, float]:
    """Percentile bootstrap CI of a rate of k successes in n 0/1 outcomes.  Resampling n
    outcomes with replacement gives Binomial(n, k/n) successes, so this equals the
    resampling bootstrap without materialising the resamples (paper scale: millions of rows)."""
    import numpy as np

    if n == 0:
        return (float("nan"), float("nan"))
    draws = np.random.default_rng(seed).binomial(n, k / n, size=n_boot) / n
    a = (1 - level) / 2
    return float(np.quantile(draws, a)), float(np.quantile(draws, 1 - a))


def rates_by(d: pd.DataFrame, factors, n_boot: int, seed: int) -> pd.DataFrame:
    """Allow-preference rate per level of each factor (valid decisions), with CI and counts."""
    rows = []
    for f in factors:
        if f not in d.columns:
            continue
        c = count_rates(d, [f])
        prob = (1 - d["p_follow_culture"]).groupby(d[f]).mean() if "p_follow_culture" in d.columns else None
        for r in c.itertuples(index=False):
            level = getattr(r, f) if f.isidentifier() else r[0]
            lo, hi = binomial_bootstrap_ci(int(r.n_allow), int(r.n_valid), n_boot, seed)
            row = {"factor": f, "level": level, "n": int(r.n), "n_valid": int(r.n_valid),
                   "n_unknown": int(r.n - r.n_valid), "allow_rate": r.allow_rate, "ci_low": lo, "ci_high": hi}
            if prob is not None:
                row["allow_prob_mean"] = float(prob.get(level, float("nan")))
            rows.append(row)
    return pd.DataFrame(rows)


def rates_by_model(d: pd.DataFrame, by: list[str], n_boot: int, seed: int) -> pd.DataFrame:
    """Rates per model x (configuration / kind ...) for figures 3 and 4."""
    rows = []
    for keys, g in d.groupby(["model", *by], dropna=False):
        keys = keys if isinstance(keys, tuple) else (keys,)
        valid = g["allow"].dropna()
        lo, hi = bootstrap_rate_ci(valid.to_numpy(), n_boot=n_boot, seed=seed)
        rows.append({**dict(zip(["model", *by], keys)), "n": len(g), "n_valid": len(valid),
                     "n_unknown": int((g["decision"] == UNKNOWN).sum()),
                     "allow_rate": valid.mean() if len(valid) else float("nan"), "ci_low": lo, "ci_high": hi})
    return pd.DataFrame(rows)


def chi_square_table(d: pd.DataFrame, factors) -> pd.DataFrame:
    valid = d[d["decision"] != UNKNOWN]
    rows = [chi_square_cramer(valid, f, "decision") for f in factors if f in valid.columns]
    return pd.DataFrame(rows)


def demographic_effects(d: pd.DataFrame) -> pd.DataFrame:
    """Percentage-point contrasts per model: younger - older, female - male (actor and receiver),
    younger->younger - older->older, female->female - male->male (appendix B.9)."""
    contrasts = [("actor_age", "younger", "older"), ("receiver_age", "younger", "older"),
                 ("actor_gender", "female", "male"), ("receiver_gender", "female", "male"),
                 ("age_pair", "younger->younger", "older->older"), ("gender_pair", "female->female", "male->male")]
    rows = []
    valid = d[d["decision"] != UNKNOWN]
    for model, g in [("all", valid), *valid.groupby("model")]:
        for f, a, b in contrasts:
            ra = g.loc[g[f] == a, "allow"].mean()
            rb = g.loc[g[f] == b, "allow"].mean()
            rows.append({"model": model, "factor": f, "contrast": f"{a} - {b}", "rate_a": ra, "rate_b": rb,
                         "delta_pp": 100 * (ra - rb)})
    return pd.DataFrame(rows)


def region_deltas(d: pd.DataFrame) -> pd.DataFrame:
    """Receiver-region allow rate minus the overall rate, in pp, averaged across models (figure 5C)."""
    valid = d[d["decision"] != UNKNOWN]
    per_model = []
    for model, g in valid.groupby("model"):
        overall = g["allow"].mean()
        r = g.groupby("receiver_region")["allow"].agg(["mean", "size"]).reset_index()
        r["delta_pp"] = 100 * (r["mean"] - overall)
        r["model"] = model
        per_model.append(r)
    if not per_model:
        return pd.DataFrame(columns=["region", "delta_pp", "n"])
    allm = pd.concat(per_model)
    out = allm.groupby("receiver_region").agg(delta_pp=("delta_pp", "mean"), n=("size", "sum")).reset_index()
    return out.rename(columns={"receiver_region": "region"})


def count_rates(d: pd.DataFrame, keys: list[str], decision: str = "decision") -> pd.DataFrame:
    """n, n_valid, n_allow and allow_rate per level of ``keys`` with one integer ``np.bincount``
    over combined category codes (the paper-scale aggregation: tens of millions of decisions)."""
    import numpy as np

    dec = d[decision]
    dec = dec if isinstance(dec.dtype, pd.CategoricalDtype) else dec.astype("category")
    cats = list(dec.cat.categories)
    nd = len(cats)
    codes = dec.cat.codes.to_numpy().astype(np.intp)
    levels, mult = [], nd
    for k in keys:
        col = d[k] if isinstance(d[k].dtype, pd.CategoricalDtype) else d[k].astype("category")
        codes += col.cat.codes.to_numpy() * np.intp(mult)
        mult *= len(col.cat.categories)
        levels.append(col.cat.categories)
    table = np.bincount(codes, minlength=mult).reshape(-1, nd)  # rows: key combinations (first key fastest)
    n = table.sum(axis=1)
    present = np.nonzero(n)[0]
    res = {}
    rem = present.copy()
    for k, lv in zip(keys, levels):
        res[k] = np.asarray(lv)[rem % len(lv)]
        rem = rem // len(lv)
    out = pd.DataFrame(res)
    out["n"] = n[present]
    unknown = table[present, cats.index(UNKNOWN)] if UNKNOWN in cats else 0
    out["n_valid"] = out["n"] - unknown
    out["n_allow"] = table[present, cats.index(ALLOW)] if ALLOW in cats else 0
    with np.errstate(invalid="ignore", divide="ignore"):
        out["allow_rate"] = out["n_allow"] / out["n_valid"]
    return out
