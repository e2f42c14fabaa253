"""Section 4 / appendix B analyses: allow-preference rates per factor with
bootstrap CIs and valid/UNKNOWN counts, chi-square tests with Cramer's V,
demographic contrasts (younger - older, female - male), region deltas, the
actor-region x receiver-region rates (B.2) and the preference strength / theme
bins (B.7).

All rate tables count with ``count_rates_many`` (integer category codes and
``np.bincount`` over combined codes, several factors per pass): at paper scale
the decision table has ~11.5 million rows (bench/pact_aggregates.py).
"""

from __future__ import annotations

import logging
import re

import numpy as np
import pandas as pd

from ..core.seeds import derive_seed
from ..core.shards import gather
from ..core.tables import read_tsv
from .labels import ALLOW, UNKNOWN

log = logging.getLogger(__name__)

FACTORS = ["model", "model_kind", "configuration", "preference_type", "preference_strength", "preference_theme",
           "receiver_country", "actor_country", "receiver_region", "actor_region", "actor_age", "actor_gender",
           "receiver_age", "receiver_gender", "age_pair", "gender_pair", "relation", "source", "system_prompt",
           "demo_ablation"]

# Appendix B.7: keyword-based analysis bins of the personal preference text (author-defined
# analysis aids, not gold labels; the paper does not publish its keyword lists, these are ours).
# Keywords are regular-expression fragments matched at the start of a word ("diet" matches
# "dietary"; "hands?\\b" matches "hand" but not "handshake"); the first bin that matches wins.
STRENGTH_KEYWORDS = {
    # health, diet, safety, privacy, bodily comfort
    "strong": ("health", "diet", "allerg", "safe", "privacy", "private", "bod", "physical", "pain", "sick",
               r"ill\b", "illness", "injur", "religio", "vegetar", "vegan", "halal", "kosher", "caffeine", "alcohol",
               "sleep", "hygien", "germ"),
    # convenience or minor comfort: the free hand, the faster option
    "low_stakes": ("convenien", r"fast(?:er|est)?\b", "quick", "easier", "easy", "time", "busy", r"hands?\b",
                   "simple", "lazy", "effort", "save", "saving", "efficien", "hurry"),
}
STRENGTH_LEVELS = ("low_stakes", "strong", "other")  # other: habitual, taste, style, communication
THEME_KEYWORDS = {
    "health/diet/safety": ("health", "diet", "allerg", "safe", "sick", r"ill\b", "illness", "injur", "pain",
                           "vegetar", "vegan", "halal", "kosher", "caffeine", "alcohol", "sugar", "sleep", "hygien",
                           "germ", "clean", "medic", "bod", "physical"),
    "privacy/boundary/values": ("privacy", "private", "boundar", "personal space", "independen", "autonomy", "alone",
                                "value", "belief", "religio", "ethic", "fair", "principle", "conscience", "equal"),
    "social directness/communication": ("direct", "honest", "frank", "speak", "say", "talk", "communicat",
                                        "express", "opinion", "feedback", "straightforward", "candid", "blunt",
                                        "explain", "ask", "greet", "conversation", "word"),
    "taste/style/identity": ("taste", "flavo", "style", "fashion", "wear", "dress", "cloth", r"colou?rs?\b",
                             "music", "identity", "look", "appearance", "decor", "aesthetic", "spic", "sweet",
                             "favo"),
    "convenience/efficiency": ("convenien", r"fast(?:er|est)?\b", "quick", "easier", "easy", "efficien", "time",
                               "busy", "simple", "practical", "save", "saving", "effort", "hurry", r"hands?\b"),
    "comfort/habit": ("comfort", "habit", "used to", "usual", "routine", "familiar", "relax", "cozy", "casual",
                      "always", "accustomed"),
}
THEME_LEVELS = (*THEME_KEYWORDS, "other")
GENERATION_TYPES = ("convenience", "habit", "value_style")  # section 3.2: the buckets preferences are built in


def _keyword_patterns(table: dict[str, tuple[str, ...]]) -> list[tuple[str, re.Pattern]]:
    return [(label, re.compile(r"\b(?:" + "|".join(keys) + ")", re.I)) for label, keys in table.items()]


_STRENGTH_RE = _keyword_patterns(STRENGTH_KEYWORDS)
_THEME_RE = _keyword_patterns(THEME_KEYWORDS)


def _first_bin(text, patterns) -> str:
    low = "" if text is None or (isinstance(text, float) and np.isnan(text)) else str(text)
    for label, pat in patterns:
        if pat.search(low):
            return label
    return "other"


def preference_strength(text: str) -> str:
    """low_stakes / strong / other (appendix B.7, table 9)."""
    return _first_bin(text, _STRENGTH_RE)


def preference_theme(text: str) -> str:
    """One of the six thematic bins of appendix B.7 (table 10), or other."""
    return _first_bin(text, _THEME_RE)


def add_preference_bins(d: pd.DataFrame) -> pd.DataFrame:
    """preference_strength and preference_theme columns from the preference text (each distinct
    text classified once)."""
    texts = d["personal_preference"]
    uniq = pd.unique(texts)
    d["preference_strength"] = texts.map(dict(zip(uniq, map(preference_strength, uniq))))
    d["preference_theme"] = texts.map(dict(zip(uniq, map(preference_theme, uniq))))
    return d


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
    return add_preference_bins(d)


GENERATION_COLUMNS = ["condition_id", "valid", "decision", "attempts", "raw_output"]
LOGPROB_COLUMNS = ("p_follow_culture", "letter_mass", "logprob_A", "logprob_B")


def shard_decisions(d: pd.DataFrame, model: str, model_kind: str) -> pd.DataFrame:
    """``decisions_table`` of one behaviour shard table (conditions, decisions, letter scores)."""
    lp_cols = [c for c in LOGPROB_COLUMNS if c in d.columns]
    conds = d.drop(columns=GENERATION_COLUMNS[1:] + lp_cols)
    lp = d[["condition_id", *lp_cols]] if lp_cols else None
    return decisions_table(conds, d[GENERATION_COLUMNS], model, model_kind, lp)


def gather_decisions(shards: list[str], model_kinds: dict[str, str]) -> pd.DataFrame:
    """One decision table from the behaviour shard tables ``<model>/shard_<k>.tsv``, given per
    model in shard order (contiguous shards: each model's rows in condition order)."""
    parts = []
    for path in shards:
        model = str(path).split("/")[-2]
        parts.append(shard_decisions(read_tsv(path, empty_as_na=True), model, model_kinds[model]))
    return gather(parts)


def main_decisions(d: pd.DataFrame, models: list[str]) -> pd.DataFrame:
    """The decisions of the main models (comparison-only models enter Figure 4 and the pair table only)."""
    return d[d["model"].isin(models)]


def decision_counts(d: pd.DataFrame) -> dict[str, int]:
    """Valid and UNKNOWN decisions (provenance counts)."""
    return {"valid": int((d["decision"] != UNKNOWN).sum()), "invalid": int((d["decision"] == UNKNOWN).sum())}


def behaviour_tables(everything: pd.DataFrame, models: list[str], model_pairs: list[dict], n_boot: int,
                     seed: int, significance: dict | None = None) -> tuple[dict[str, pd.DataFrame], dict[str, int]]:
    """The section 4 / appendix B tables of a decision table and the decision counts of the main
    models ``models`` (comparison-only models enter Figure 4 and the pair table only); the B.9
    statistics over the ``significance`` subset (``significance_subset``)."""
    d = main_decisions(everything, models)
    log.info("main analyses on %d of %d decisions (models %s)", len(d), len(everything), models)
    by_source = figure5_demographic_effects(d, significance, by=("source",))
    return {
        "rates": rates_by(d, FACTORS, n_boot, seed),
        "by_model_config": rates_by_model(d, ["configuration"], n_boot, seed, table="by_model_config"),
        "by_model_kind": rates_by_model(everything, ["model_kind"], n_boot, seed, table="by_model_kind"),
        "model_pairs": model_pair_rates(everything, model_pairs, n_boot, seed),
        "by_model": rates_by_model(d, [], n_boot, seed, table="by_model"),
        "chi_square": chi_square_table(d, FACTORS, significance),
        "demographics": demographic_effects(d, significance),
        "figure5_demographics": figure5_demographic_effects(d, significance),
        "figure12_demographics": by_source,
        "figure12_directions": direction_shares(by_source),
        "pair_rates": pair_rates(d, n_boot, seed, significance),
        "regions": region_deltas(d),
        "region_pairs": region_pair_rates(d),
        "preference_bins": preference_bins(d, n_boot, seed),
        "strength_by_country": strength_by_country(d),
        "per_model": per_model_tables(d, everything, n_boot, seed),
    }, decision_counts(d)


def binomial_bootstrap_ci(k: int, n: int, n_boot: int, seed: int, item: tuple,
                          level: float = 0.95) -> tuple[float, float]:
    """Percentile bootstrap CI of a rate of k successes in n 0/1 outcomes.  Resampling n
    outcomes with replacement gives Binomial(n, k/n) successes, so this equals the
    resampling bootstrap without materialising the resamples (paper scale: millions of rows).
    The draws come from ``derive_seed(seed, "pact", "behaviour", *item)``, ``item`` naming the
    table and the row (its keys), so no two rows of a table draw the same stream."""
    if n == 0:
        return (float("nan"), float("nan"))
    draws = np.random.default_rng(derive_seed(seed, "pact", "behaviour", *item)).binomial(n, k / n, size=n_boot) / n
    a = (1 - level) / 2
    return float(np.quantile(draws, a)), float(np.quantile(draws, 1 - a))


def rates_by(d: pd.DataFrame, factors, n_boot: int, seed: int) -> pd.DataFrame:
    """Allow-preference rate per level of each factor (valid decisions), with CI and counts."""
    rows = []
    factors = [f for f in factors if f in d.columns]
    counted = count_rates_many(d, [[f] for f in factors])
    for f, c in zip(factors, counted):
        prob = (1 - d["p_follow_culture"]).groupby(d[f]).mean() if "p_follow_culture" in d.columns else None
        for r in c.itertuples(index=False):
            level = getattr(r, f) if f.isidentifier() else r[0]
            lo, hi = binomial_bootstrap_ci(int(r.n_allow), int(r.n_valid), n_boot, seed,
                                           ("rates", f, level))
            row = {"factor": f, "level": level, "n": int(r.n), "n_valid": int(r.n_valid),
                   "n_unknown": int(r.n - r.n_valid), "allow_rate": r.allow_rate, "ci_low": lo, "ci_high": hi}
            if prob is not None:
                row["allow_prob_mean"] = float(prob.get(level, float("nan")))
            rows.append(row)
    return pd.DataFrame(rows)


def rates_by_model(d: pd.DataFrame, by: list[str], n_boot: int, seed: int, table: str = "") -> pd.DataFrame:
    """Rates per model x (configuration / kind ...) for figures 3 and 4, with binomial bootstrap
    CIs (``binomial_bootstrap_ci``: the resampling bootstrap of 0/1 outcomes without
    materialising n_boot x n resamples, which at paper scale is gigabytes per group); each row's
    CI draws from its own seed, labelled with ``table`` (default: the keys) and the row's keys."""
    keys = ["model", *by]
    cols = [*keys, "n", "n_valid", "n_unknown", "allow_rate", "ci_low", "ci_high"]
    t = count_rates(d, keys).sort_values(keys, kind="stable", na_position="last")
    rows = []
    label = table or "|".join(keys)
    for r in t.itertuples(index=False):
        lo, hi = binomial_bootstrap_ci(int(r.n_allow), int(r.n_valid), n_boot, seed,
                                       (label, *r[:len(keys)]))
        rows.append({**{k: v for k, v in zip(keys, r[:len(keys)])}, "n": int(r.n), "n_valid": int(r.n_valid),
                     "n_unknown": int(r.n - r.n_valid), "allow_rate": r.allow_rate, "ci_low": lo, "ci_high": hi})
    return pd.DataFrame(rows, columns=cols)


# Appendix tables reported per model: (name, keys, reference level of the last key for delta_pp).
# Tables 5, 7, 8 and 14 over the main models; the B.8 configuration rates also over the
# comparison models (base and larger counterparts).
PER_MODEL_TABLES = (("table5_system_prompt", ["system_prompt"], "no_balance", "main"),
                    ("table7_demo_ablation", ["demo_ablation"], "no_demo", "main"),
                    ("table8_configuration_demo_ablation", ["configuration", "demo_ablation"], "no_demo", "main"),
                    ("table14_source", ["source"], None, "main"),
                    ("b8_configuration", ["configuration"], None, "all"))
PER_MODEL_COLUMNS = ["table", "model", "key", "level", "n", "n_valid", "n_unknown", "allow_rate", "ci_low",
                     "ci_high", "reference", "delta_pp"]


def per_model_tables(d: pd.DataFrame, everything: pd.DataFrame, n_boot: int, seed: int) -> pd.DataFrame:
    """Appendix tables 5 (balance vs no-balance), 7 (demographic ablations), 8 (ablation by
    configuration), 14 (source split) and the B.8 configuration rates, per model, in one long
    table: ``key`` names the columns, ``level`` their values joined by "|"; ``delta_pp`` is the
    rate minus the rate of the ``reference`` level of the last key in the same model (and the
    same configuration for table 8), in percentage points; for table 14 the reference is the
    unweighted mean over the sources (the paper's mean column)."""
    parts = []
    for name, keys, ref, who in PER_MODEL_TABLES:
        data = everything if who == "all" else d
        if any(k not in data.columns for k in keys) or data.empty:
            continue
        t = rates_by_model(data, keys, n_boot, seed, table=name)
        group = ["model", *keys[:-1]]
        if ref is not None:
            base = t[t[keys[-1]] == ref].set_index(group)["allow_rate"]
            t["reference"] = ref
        else:
            base = t.groupby(group)["allow_rate"].mean() if name.startswith("table14") else None
            t["reference"] = "mean_over_levels" if base is not None else ""
        if base is not None:
            idx = pd.MultiIndex.from_frame(t[group]) if len(group) > 1 else t[group[0]]
            t["delta_pp"] = 100 * (t["allow_rate"].to_numpy() - base.reindex(idx).to_numpy())
        else:
            t["delta_pp"] = np.nan
        t["level"] = t[keys].astype(str).agg("|".join, axis=1)
        t["key"] = "|".join(keys)
        t["table"] = name
        parts.append(t[PER_MODEL_COLUMNS])
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=PER_MODEL_COLUMNS)


PAIR_COLUMNS = ["comparison", "a", "b", "n_valid_a", "n_valid_b", "allow_rate_a", "allow_rate_b",
                "diff_b_minus_a", "ci_low", "ci_high"]


def model_pair_rates(d: pd.DataFrame, pairs: list[dict], n_boot: int, seed: int) -> pd.DataFrame:
    """Figure 4 / appendix B.8: allow-preference rate of model ``b`` minus model ``a`` for
    each configured pair (base -> instruct, small -> large), on valid decisions, with a
    percentile CI from independent binomial bootstraps of the two rates.  A pair whose
    model has no decisions gives NaN rates (the table keeps the row)."""
    c = count_rates(d, ["model"]).set_index("model")
    rows = []
    for pair in pairs:
        got = {}
        for side in ("a", "b"):
            r = c.loc[pair[side]] if pair[side] in c.index else None
            got[side] = (0, 0) if r is None else (int(r.n_allow), int(r.n_valid))
        (ka, na), (kb, nb) = got["a"], got["b"]
        ra = ka / na if na else float("nan")
        rb = kb / nb if nb else float("nan")
        lo = hi = float("nan")
        if na and nb:
            rng = np.random.default_rng(derive_seed(seed, "pact", "behaviour", "model_pairs", pair["comparison"],
                                                    pair["a"], pair["b"]))
            diff = rng.binomial(nb, rb, size=n_boot) / nb - rng.binomial(na, ra, size=n_boot) / na
            lo, hi = (float(x) for x in np.quantile(diff, [0.025, 0.975]))
        rows.append({"comparison": pair["comparison"], "a": pair["a"], "b": pair["b"], "n_valid_a": na,
                     "n_valid_b": nb, "allow_rate_a": ra, "allow_rate_b": rb, "diff_b_minus_a": rb - ra,
                     "ci_low": lo, "ci_high": hi})
    return pd.DataFrame(rows, columns=PAIR_COLUMNS)


SIGNIFICANCE_COLUMNS = {"sources": "source", "model_kinds": "model_kind", "system_prompts": "system_prompt"}
AGE_FACTORS = ("actor_age", "receiver_age", "age_pair")
GENDER_FACTORS = ("actor_gender", "receiver_gender", "gender_pair")


def significance_subset(d: pd.DataFrame, significance: dict | None) -> tuple[pd.DataFrame, str]:
    """The decisions of the appendix B.9 statistics (paper: CultureAtlas, instruction-tuned models,
    balance prompt; ``pact.behaviour.significance``; an empty list keeps all) and a description
    of the subset for the tables' ``subset`` column."""
    sig = significance or {}
    parts = []
    for key, col in SIGNIFICANCE_COLUMNS.items():
        keep = list(sig.get(key) or [])
        if keep:
            if col not in d.columns:
                raise KeyError(f"decision table has no {col!r} column for pact.behaviour.significance.{key}")
            d = d[d[col].isin(keep)]
            parts.append(f"{col} in {{{', '.join(keep)}}}")
    return d, "; ".join(parts) or "all decisions"


def _shown(d: pd.DataFrame, ablations) -> pd.DataFrame:
    keep = list(ablations or [])
    return d[d["demo_ablation"].isin(keep)] if keep and "demo_ablation" in d.columns else d


def chi_square_table(d: pd.DataFrame, factors, significance: dict | None = None) -> pd.DataFrame:
    """Chi-square test and Cramer's V of each factor against the decision (valid decisions of the
    B.9 subset); age / gender factors over the ablations whose prompts show age / gender."""
    from ..stats.association import chi_square_cramer

    sig = significance or {}
    valid, subset = significance_subset(d[d["decision"] != UNKNOWN], sig)
    rows = []
    for f in factors:
        if f not in valid.columns:
            continue
        g = (_shown(valid, sig.get("age_ablations")) if f in AGE_FACTORS
             else _shown(valid, sig.get("gender_ablations")) if f in GENDER_FACTORS else valid)
        rows.append({**chi_square_cramer(g, f, "decision"), "column": f, "subset": subset})
    scenario_type = sig.get("scenario_type")
    if scenario_type:  # Table 13's "scenario type" row: the column ``significance.scenario_type`` names
        if scenario_type not in valid.columns:
            raise KeyError(f"decision table has no {scenario_type!r} column for pact.behaviour.significance."
                           "scenario_type")
        rows.append({**chi_square_cramer(valid, scenario_type, "decision"), "factor": "scenario_type",
                     "column": scenario_type, "subset": subset})
    return pd.DataFrame(rows)


def demographic_effects(d: pd.DataFrame, significance: dict | None = None) -> pd.DataFrame:
    """Percentage-point contrasts per model: younger - older, female - male (actor and receiver),
    younger->younger - older->older, female->female - male->male (appendix B.9), over the B.9
    subset; age contrasts only over prompts that show age, gender contrasts over prompts that
    show gender (``age_ablations`` / ``gender_ablations``)."""
    contrasts = [("actor_age", "younger", "older"), ("receiver_age", "younger", "older"),
                 ("actor_gender", "female", "male"), ("receiver_gender", "female", "male"),
                 ("age_pair", "younger->younger", "older->older"), ("gender_pair", "female->female", "male->male")]
    sig = significance or {}
    rows = []
    valid, subset = significance_subset(d[d["decision"] != UNKNOWN], sig)
    for model, g0 in [("all", valid), *valid.groupby("model")]:
        for f, a, b in contrasts:
            g = _shown(g0, sig.get("age_ablations") if f in AGE_FACTORS else sig.get("gender_ablations"))
            ga, gb = g.loc[g[f] == a, "allow"], g.loc[g[f] == b, "allow"]
            ra, rb = ga.mean(), gb.mean()
            rows.append({"model": model, "factor": f, "contrast": f"{a} - {b}", "rate_a": ra, "rate_b": rb,
                         "delta_pp": 100 * (ra - rb), "n_a": len(ga), "n_b": len(gb), "subset": subset})
    return pd.DataFrame(rows)


FIGURE5_CONTRASTS = (("age", "younger", "older"), ("gender", "female", "male"))
DEMOGRAPHIC_ROLES = ("actor", "receiver")


def figure5_demographic_effects(d: pd.DataFrame, significance: dict | None = None,
                                by: tuple[str, ...] = ()) -> pd.DataFrame:
    """Figure 5 A/B and the abstract's age and gender effects (section 4.3: "across both actor and
    receiver contexts"): younger - older and female - male allow-preference rates in percentage
    points, per model and pooled over the main models ("all"), for the actor, the receiver and
    both (``actor_and_receiver``: each decision counted once as actor and once as receiver).  Over
    every valid decision of the main models (all sources, model kinds and system prompts: not the
    appendix B.9 subset of ``demographic_effects``), age contrasts over the prompts that show age
    and gender contrasts over those that show gender (``significance`` ``age_ablations`` /
    ``gender_ablations``).  ``by``: further columns the effects are split by (Figure 12: source)."""
    sig = significance or {}
    valid = d[d["decision"] != UNKNOWN]
    by = list(by)
    rows = []
    groups = [(("all", *k) if by else ("all",), g) for k, g in (valid.groupby(by) if by else [((), valid)])]
    groups += [(k if isinstance(k, tuple) else (k,), g) for k, g in valid.groupby(["model", *by])]
    for key, g0 in groups:
        model, split = key[0], dict(zip(by, key[1:]))
        for factor, a, b in FIGURE5_CONTRASTS:
            g = _shown(g0, sig.get(f"{factor}_ablations"))
            sums = {role: {lvl: g.loc[g[f"{role}_{factor}"] == lvl, "allow"] for lvl in (a, b)}
                    for role in DEMOGRAPHIC_ROLES}
            sums["actor_and_receiver"] = {lvl: pd.concat([sums[r][lvl] for r in DEMOGRAPHIC_ROLES]) for lvl in (a, b)}
            for role, lv in sums.items():
                ra, rb = lv[a].mean(), lv[b].mean()
                rows.append({"model": model, **split, "factor": factor, "role": role, "contrast": f"{a} - {b}",
                             "rate_a": ra, "rate_b": rb, "delta_pp": 100 * (ra - rb), "n_a": len(lv[a]),
                             "n_b": len(lv[b]), "decisions": f"main models, prompts that show {factor}"})
    return pd.DataFrame(rows)


def direction_shares(effects: pd.DataFrame) -> pd.DataFrame:
    """Appendix B.4's "younger actors receive higher Allow-Preference rates than older actors (90% of
    the time across model settings)": per factor and role, the share of model x source settings
    (rows of ``figure5_demographic_effects(..., by=("source",))`` of single models) whose contrast
    is positive (``delta_pp`` > 0), with the settings counted."""
    d = effects[(effects["model"] != "all") & effects["delta_pp"].notna()]
    rows = []
    for (factor, role), g in d.groupby(["factor", "role"], sort=False):
        rows.append({"factor": factor, "role": role, "contrast": g["contrast"].iloc[0], "n_settings": len(g),
                     "n_positive": int((g["delta_pp"] > 0).sum()), "share_positive": float((g["delta_pp"] > 0).mean()),
                     "mean_delta_pp": float(g["delta_pp"].mean())})
    return pd.DataFrame(rows, columns=["factor", "role", "contrast", "n_settings", "n_positive", "share_positive",
                                       "mean_delta_pp"])


PAIR_FACTORS = (("age_pair", "age"), ("gender_pair", "gender"))


def pair_rates(d: pd.DataFrame, n_boot: int, seed: int, significance: dict | None = None) -> pd.DataFrame:
    """Appendix B.4 Table 6: allow-preference rate (share of valid decisions, bootstrap CI) per
    actor -> receiver age pair and gender pair, per model and pooled over the main models
    ("all"); age pairs over the prompts that show age, gender pairs over those that show gender
    (``significance`` ``age_ablations`` / ``gender_ablations``)."""
    sig = significance or {}
    parts = []
    for col, factor in PAIR_FACTORS:
        shown = _shown(d, sig.get(f"{factor}_ablations"))
        if col not in shown.columns or shown.empty:
            continue
        per = rates_by_model(shown, [col], n_boot, seed)
        pooled = rates_by_model(shown.assign(model="all"), [col], n_boot, seed)
        t = pd.concat([pooled, per], ignore_index=True).rename(columns={col: "pair"})
        parts.append(t.assign(factor=col))
    cols = ["factor", "model", "pair", "n", "n_valid", "n_unknown", "allow_rate", "ci_low", "ci_high"]
    return pd.concat(parts, ignore_index=True)[cols] if parts else pd.DataFrame(columns=cols)


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


def region_pair_rates(d: pd.DataFrame) -> pd.DataFrame:
    """Appendix B.2: allow-preference rate (valid decisions) per actor region x receiver region,
    per model and over all models ("all"), for all sources pooled and per source ("all" /
    normad / cultureatlas).  Cells with no decision are absent."""
    keys = ["actor_region", "receiver_region"]
    has_src = "source" in d.columns
    sets = [keys, ["model", *keys]] + ([["source", *keys], ["model", "source", *keys]] if has_src else [])
    parts = []
    for ks, t in zip(sets, count_rates_many(d, sets)):
        t = t.copy()
        if "model" not in ks:
            t["model"] = "all"
        if "source" not in ks:
            t["source"] = "all"
        parts.append(t)
    out = pd.concat(parts, ignore_index=True)
    out["n_unknown"] = out["n"] - out["n_valid"]
    cols = ["model", "source", *keys, "n", "n_valid", "n_unknown", "n_allow", "allow_rate"]
    return out[cols].sort_values(["model", "source", *keys], kind="stable").reset_index(drop=True)


def _full_demo(d: pd.DataFrame) -> pd.DataFrame:
    """Appendix B.7 uses the full-demographics setting only (no demographic-ablation confound)."""
    return d[d["demo_ablation"] == "full_demo"] if "demo_ablation" in d.columns else d


def preference_bins(d: pd.DataFrame, n_boot: int, seed: int) -> pd.DataFrame:
    """Appendix B.7 / tables 9 and 10 (and the section 3.2 generation buckets): allow-preference
    rate per preference bin, per model and pooled over models ("all": the weighted average
    across models, each model weighted by its valid decisions), full_demo setting only.

    grouping: ``strength`` (low_stakes / strong / other), ``theme`` (six thematic bins + other),
    ``generation_type`` (convenience / habit / value_style, the bucket the preference was
    built in; absent when the table has no preference_type column)."""
    d = _full_demo(d)
    if "preference_strength" not in d.columns or "preference_theme" not in d.columns:
        d = add_preference_bins(d.copy())
    groups = [("strength", "preference_strength", STRENGTH_LEVELS), ("theme", "preference_theme", THEME_LEVELS)]
    if "preference_type" in d.columns:
        groups.append(("generation_type", "preference_type", GENERATION_TYPES))
    sets = [ks for _, col, _ in groups for ks in ([col], ["model", col])]
    tables = count_rates_many(d, sets)
    rows = []
    for gi, (grouping, col, order) in enumerate(groups):
        pooled, per_model = tables[2 * gi], tables[2 * gi + 1]
        for model, t in [("all", pooled), *((m, g) for m, g in per_model.groupby("model", sort=True))]:
            rank = {lv: i for i, lv in enumerate(order)}
            t = t.assign(_o=t[col].map(lambda v: rank.get(v, len(rank)))).sort_values(["_o", col], kind="stable")
            for r in t.itertuples(index=False):
                lv = getattr(r, col)
                k, n_valid = int(r.n_allow), int(r.n_valid)
                lo, hi = binomial_bootstrap_ci(k, n_valid, n_boot, seed,
                                               ("preference_bins", grouping, model, lv))
                rows.append({"grouping": grouping, "model": model, "level": lv, "n": int(r.n), "n_valid": n_valid,
                             "n_unknown": int(r.n) - n_valid, "n_allow": k, "allow_rate": r.allow_rate,
                             "ci_low": lo, "ci_high": hi})
    cols = ["grouping", "model", "level", "n", "n_valid", "n_unknown", "n_allow", "allow_rate", "ci_low", "ci_high"]
    return pd.DataFrame(rows, columns=cols)


def strength_by_country(d: pd.DataFrame) -> pd.DataFrame:
    """Appendix B.7 / table 11: allow-preference rate per receiver country x preference strength
    (all models pooled, full_demo), wide: one row per country, one rate and one valid count per
    strength level, and the spread (strong - low_stakes, in pp) the paper groups countries by."""
    d = _full_demo(d)
    if "preference_strength" not in d.columns:
        d = add_preference_bins(d.copy())
    cols = ["receiver_country", *[f"allow_rate_{s}" for s in STRENGTH_LEVELS],
            *[f"n_valid_{s}" for s in STRENGTH_LEVELS], "strong_minus_low_stakes_pp"]
    if not len(d):
        return pd.DataFrame(columns=cols)
    t = count_rates(d, ["receiver_country", "preference_strength"])
    rate = t.pivot(index="receiver_country", columns="preference_strength", values="allow_rate")
    nv = t.pivot(index="receiver_country", columns="preference_strength", values="n_valid")
    rate = rate.reindex(columns=list(STRENGTH_LEVELS))
    nv = nv.reindex(columns=list(STRENGTH_LEVELS)).fillna(0).astype(int)
    out = pd.concat([rate.add_prefix("allow_rate_"), nv.add_prefix("n_valid_")], axis=1)
    out["strong_minus_low_stakes_pp"] = 100 * (out["allow_rate_strong"] - out["allow_rate_low_stakes"])
    out.columns.name = None
    return out.reset_index()[cols]


def _codes(col: pd.Series) -> tuple[np.ndarray, pd.Index, bool]:
    """Category codes of a column (categorised once if it is not categorical), its levels, and
    whether it has missing values (code -1, counted as one extra NaN level)."""
    c = col if isinstance(col.dtype, pd.CategoricalDtype) else col.astype("category")
    codes = c.cat.codes.to_numpy()
    return codes, c.cat.categories, bool((codes < 0).any())


def _pack(key_sets: list[list[str]], sizes: dict[str, int], max_bins: int) -> list[list[str]]:
    """Greedy packing of the key sets' columns into joint groups whose count table
    (product of level counts) stays within ``max_bins``; one bincount pass per group."""
    groups: list[list[str]] = []
    for ks in key_sets:
        for g in groups:
            extra = [k for k in ks if k not in g]
            if int(np.prod([sizes[k] for k in g + extra], dtype=np.float64)) <= max_bins:
                g.extend(extra)
                break
        else:
            groups.append(list(dict.fromkeys(ks)))
    return groups


def count_rates_many(d: pd.DataFrame, key_sets: list[list[str]], decision: str = "decision",
                     max_bins: int = 1 << 16, chunk: int = 1 << 18) -> list[pd.DataFrame]:
    """``count_rates`` for several key sets in few passes over the rows.

    Every column is turned into integer category codes once.  The key columns are packed into
    groups whose joint table (levels x decision categories) has at most ``max_bins`` cells; for
    each group one ``np.bincount`` over combined codes, run in cache-sized chunks of rows (no
    row-length temporaries), fills the joint count table, and each key set's table is a
    marginal sum of it.  Counts are exact integers, identical to a group-by.  Missing key
    values form their own level (NaN), as in ``groupby(dropna=False)``; a missing decision is
    an error."""
    key_sets = [list(ks) for ks in key_sets]
    for ks in key_sets:
        if not ks or len(set(ks)) != len(ks):
            raise ValueError(f"key set {ks!r}: need one or more distinct columns")
        for k in [*ks, decision]:
            if k not in d.columns:
                raise KeyError(f"count_rates: no column {k!r} in the decision table")
    dec, dcats, dmiss = _codes(d[decision])
    if dmiss:
        raise ValueError(f"count_rates: {int((dec < 0).sum())} rows have no value in column {decision!r}")
    cats = list(dcats)
    nd = max(len(cats), 1)
    codes, levels, sizes = {}, {}, {}
    for k in dict.fromkeys(k for ks in key_sets for k in ks):
        c, lv, miss = _codes(d[k])
        if miss:  # NaN as the last level
            c = np.where(c < 0, len(lv), c).astype(np.int32)
            lv = lv.append(pd.Index([np.nan]))
        codes[k], levels[k], sizes[k] = c, lv, max(len(lv), 1)
    groups = _pack(key_sets, sizes, max(max_bins // nd, 1))
    joint = []
    n = len(d)
    for g in groups:
        strides, m = [], nd
        for k in g:
            strides.append(m)
            m *= sizes[k]
        counts = np.zeros(m, dtype=np.int64)
        for s in range(0, n, chunk):
            code = dec[s:s + chunk].astype(np.intp)
            for k, st in zip(g, strides):
                code += codes[k][s:s + chunk] * np.intp(st)
            counts += np.bincount(code, minlength=m)
        # axes in reverse order of strides: last key slowest ... decision fastest
        joint.append(counts.reshape([sizes[k] for k in reversed(g)] + [nd]))
    out = []
    for ks in key_sets:
        gi = next(i for i, g in enumerate(groups) if all(k in g for k in ks))
        g = list(reversed(groups[gi]))  # axis order of the joint table
        t = joint[gi].sum(axis=tuple(i for i, k in enumerate(g) if k not in ks))
        kept = [k for k in g if k in ks]
        # to axes (last key, ..., first key, decision): rows with the first key fastest
        t = np.transpose(t, [kept.index(k) for k in reversed(ks)] + [len(ks)]).reshape(-1, nd)
        out.append(_rates_frame(t, ks, [levels[k] for k in ks], cats))
    return out


def _rates_frame(table: np.ndarray, keys: list[str], levels: list, cats: list) -> pd.DataFrame:
    """Rows of the present key combinations of a count table (rows: combinations, first key
    fastest; columns: decision categories)."""
    n = table.sum(axis=1)
    present = np.nonzero(n)[0]
    res = {}
    rem = present.copy()
    for k, lv in zip(keys, levels):
        res[k] = np.asarray(lv, dtype=object if lv.hasnans else None)[rem % len(lv)]
        rem = rem // len(lv)
    out = pd.DataFrame(res)
    out["n"] = n[present]
    unknown = table[present, cats.index(UNKNOWN)] if UNKNOWN in cats else 0
    out["n_valid"] = out["n"] - unknown
    out["n_allow"] = table[present, cats.index(ALLOW)] if ALLOW in cats else 0
    with np.errstate(invalid="ignore", divide="ignore"):
        out["allow_rate"] = out["n_allow"] / out["n_valid"]
    return out


def count_rates(d: pd.DataFrame, keys: list[str], decision: str = "decision") -> pd.DataFrame:
    """n, n_valid, n_allow and allow_rate per level of ``keys`` with integer ``np.bincount``
    over combined category codes (the paper-scale aggregation: tens of millions of decisions)."""
    return count_rates_many(d, [keys], decision)[0]
