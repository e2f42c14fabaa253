"""Human-model alignment (section 5.3, appendix F).

The models answer the human survey items (same scenario, same two questions)
without persona and with persona (participant country and demographics of
the respondents of that item).  Metrics per model x question frame x persona
setting x prompt format (appendix F.1; follow-culture coded 1):

* ``majority_alignment``: share of items where the model's (majority) choice
  equals the human majority (h_i >= 0.5 -> culture);
* ``rate_mae_item``: mean over items of |m_i - h_i| (item-level MAE);
* ``rate_gap_aggregate``: |mean_i m_i - mean_i h_i|, the gap between the
  aggregate culture-following rates of the frame; the authors' released figure
  data shows the paper's reported "MAE" is this quantity;
* ``signed_culture_gap``: mean_i (m_i - h_i), **positive = the model
  over-selects culture** (appendix F.1 and the authors' data; section 5.3 of
  the paper states the opposite sign convention, this workflow follows F.1);
* ``uncertainty_corr``: Pearson correlation of human agreement
  u_i = max(h_i, 1 - h_i) and model agreement v_i = max(m_i, 1 - m_i) (NaN when
  either is constant, e.g. deterministic no-persona outputs).

An item i is the same on both sides, ``pact.alignment.item_unit``:
``scenario_receiver`` (a scenario with the receiver shown, F.1's "item/group"):
h_i over the participants who saw that receiver, m_i over the model's answers
to that prompt, one in the no-persona setting (F.1's K_i = 1, E.2's trivial
no-persona consensus) and one per respondent profile with persona;
``scenario``: h_i over every participant of the scenario, m_i over every
prompt of the scenario (no persona: one per receiver shown, up to four).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import pearsonr

from ..core.tables import read_tsv

SIGN_NOTE = ("signed_culture_gap = mean(model culture rate - human culture rate); positive = model over-selects "
             "culture (appendix F.1 convention)")


def read_surveys(paths: list[str]) -> pd.DataFrame:
    """The survey answers of the models (``survey.run_survey`` tables), one table."""
    m = pd.concat([read_tsv(p, empty_as_na=True) for p in paths], ignore_index=True)
    m["position_audit"] = m["position_audit"].astype(str) == "True"
    m["culture_is_A"] = m["culture_is_A"].astype(str) == "True"
    return m


def alignment_tables(model_out: pd.DataFrame, human: pd.DataFrame, main_format: str,
                     synthetic: bool, item_unit: str) -> dict[str, pd.DataFrame]:
    """The alignment result tables (metrics, figure-7 summary, position audit, the models'
    norm-personal gap, persona effects per model and per persona country), each with a
    ``human_data`` column (synthetic / human)."""
    metrics = alignment_metrics(model_out, human, item_unit)
    model_gap = model_norm_personal_gap(model_out)
    tables = {"metrics": metrics, "summary": alignment_summary(metrics, main_format),
              "audit": position_audit(model_out), "model_gap": model_gap,
              "persona": persona_effects(metrics, model_gap, main_format),
              "persona_country": persona_country_effects(model_out, human, main_format, item_unit)}
    for t in tables.values():
        t["human_data"] = "synthetic" if synthetic else "human"
    return tables


ITEM_KEYS = {"scenario_receiver": ["scenario_id", "receiver_age", "receiver_gender"], "scenario": ["scenario_id"]}


def item_keys(item_unit: str) -> list[str]:
    """The columns that identify an alignment item (``pact.alignment.item_unit``)."""
    if item_unit not in ITEM_KEYS:
        raise ValueError(f"pact.alignment.item_unit: {item_unit!r} is not one of {sorted(ITEM_KEYS)}")
    return ITEM_KEYS[item_unit]


def _text_keys(df: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    return df.assign(**{k: df[k].fillna("").astype(str) for k in keys})


def human_item_rates(human: pd.DataFrame, item_unit: str) -> pd.DataFrame:
    """h_i and the number of judgements N_i per item (``item_keys``) and question."""
    keys = item_keys(item_unit)
    return (_text_keys(human, keys).groupby([*keys, "question_type"])["follow_culture"]
            .agg(h="mean", n_humans="size").reset_index())


def alignment_metrics(model_out: pd.DataFrame, human: pd.DataFrame, item_unit: str) -> pd.DataFrame:
    """Metrics per model x question x persona setting x prompt format (audit pairs excluded), over
    the items of ``item_unit`` (``k_max``: the most model answers behind one item's m_i)."""
    keys = item_keys(item_unit)
    hr = human_item_rates(human, item_unit)
    d = _text_keys(model_out[~model_out["position_audit"]], keys)
    rows = []
    for grp, g in d.groupby(["model", "question_type", "persona_setting", "prompt_format"]):
        m = g.groupby(keys)["follow_culture"].agg(m="mean", k="count").reset_index()
        j = m.merge(hr[hr.question_type == grp[1]], on=keys).dropna(subset=["m"])
        if j.empty:
            continue
        u = np.maximum(j.h, 1 - j.h)
        v = np.maximum(j.m, 1 - j.m)
        corr = pearsonr(u, v)[0] if len(j) > 2 and u.std() > 0 and v.std() > 0 else np.nan
        rows.append({
            "model": grp[0], "question_type": grp[1], "persona_setting": grp[2], "prompt_format": grp[3],
            "item_unit": item_unit, "n_items": len(j), "k_max": int(j.k.max()),
            "n_unknown": int(g["follow_culture"].isna().sum()),
            "majority_alignment": float(((j.m >= 0.5) == (j.h >= 0.5)).mean()),
            "rate_mae_item": float((j.m - j.h).abs().mean()),
            "rate_gap_aggregate": float(abs(j.m.mean() - j.h.mean())),
            "signed_culture_gap": float((j.m - j.h).mean()),
            "uncertainty_corr": float(corr), "model_agreement": float(v.mean()),
            "human_culture_rate": float(j.h.mean()), "model_culture_rate": float(j.m.mean()),
        })
    return pd.DataFrame(rows)


SUMMARY_SETTINGS = ("no_persona", "persona", "mean_over_settings")
SUMMARY_METRICS = ["majority_alignment", "rate_mae_item", "rate_gap_aggregate", "signed_culture_gap"]


def alignment_summary(metrics: pd.DataFrame, main_format: str) -> pd.DataFrame:
    """Figure 7 numbers, main prompt format, per model x frame (and "avg" over the frames) x
    ``persona_setting``: ``no_persona`` (the authors' released figure-7 values and the no-persona
    MAEs of section 5.3 are these), ``persona``, and ``mean_over_settings`` (the mean of the two,
    what section 5.3's text says it averages).  ``uncertainty_corr`` is the setting's own value
    (NaN when model agreement is constant, as for deterministic no-persona outputs); for
    ``mean_over_settings`` it is the persona value, the only one panel D can show."""
    m = metrics[metrics.prompt_format == main_format]
    rows = []
    for model, g in m.groupby("model"):
        per_setting = {s: gs.groupby("question_type")[SUMMARY_METRICS + ["uncertainty_corr"]].mean()
                       for s, gs in g.groupby("persona_setting")}
        present = [s for s in ("no_persona", "persona") if s in per_setting]
        if not present:
            continue
        frames = sorted(set().union(*[per_setting[s].index for s in present]))
        per_setting["mean_over_settings"] = pd.concat([per_setting[s] for s in present]).groupby(level=0).mean()
        if "persona" in per_setting:
            per_setting["mean_over_settings"]["uncertainty_corr"] = per_setting["persona"]["uncertainty_corr"]
        for setting in SUMMARY_SETTINGS:
            if setting not in per_setting:
                continue
            t = per_setting[setting].reindex(frames)
            for frame in [*frames, "avg"]:
                vals = t.mean() if frame == "avg" else t.loc[frame]
                rows.append({"model": model, "frame": frame, "persona_setting": setting, **vals.to_dict()})
    return pd.DataFrame(rows, columns=["model", "frame", "persona_setting", *SUMMARY_METRICS, "uncertainty_corr"])


def position_audit(model_out: pd.DataFrame) -> pd.DataFrame:
    """Culture-following rate with the culture option shown as A vs B on paired items."""
    pairs = model_out[model_out["persona_setting"] == "no_persona"]
    audit_ids = set(model_out.loc[model_out["position_audit"], "scenario_id"])
    pairs = pairs[pairs["scenario_id"].isin(audit_ids) & (pairs["prompt_format"] == model_out["prompt_format"].iloc[0])]
    rows = []
    for (model, q), g in pairs.groupby(["model", "question_type"]):
        ra = g.loc[g.culture_is_A, "follow_culture"].mean()
        rb = g.loc[~g.culture_is_A, "follow_culture"].mean()
        rows.append({"model": model, "question_type": q, "n_pairs": int(g.loc[g.culture_is_A].shape[0]),
                     "culture_rate_when_A": ra, "culture_rate_when_B": rb, "delta_pp": 100 * (ra - rb),
                     "n_unknown": int(g["follow_culture"].isna().sum())})
    return pd.DataFrame(rows)


def model_norm_personal_gap(model_out: pd.DataFrame) -> pd.DataFrame:
    """Appendix E: per model and persona setting (main prompt format), preference-allowing rates
    for the personal and norm frames, gap = p_pers - p_norm, and personal-norm consistency
    (share of item x persona cells where both frames get the same decision)."""
    main = model_out["prompt_format"].iloc[0] if len(model_out) else None
    d = model_out[(~model_out["position_audit"]) & (model_out["prompt_format"] == main)]
    rows = []
    for (model, setting), g in d.groupby(["model", "persona_setting"]):
        pp = 1 - g.loc[g.question_type == "personal", "follow_culture"].mean()
        pn = 1 - g.loc[g.question_type == "norm", "follow_culture"].mean()
        cell = [c for c in ("scenario_id", "receiver_age", "receiver_gender", "persona_country", "persona_age",
                             "persona_gender") if c in g.columns]  # one cell per prompt shown
        g = g.assign(**{c: g[c].fillna("").astype(str) for c in cell})
        wide = g.pivot_table(index=cell, columns="question_type", values="follow_culture", aggfunc="first").dropna()
        cons = float((wide["personal"] == wide["norm"]).mean()) if {"personal", "norm"} <= set(wide.columns) else np.nan
        rows.append({"model": model, "persona_setting": setting, "p_personal_allow": pp, "p_norm_allow": pn,
                     "gap": pp - pn, "personal_norm_consistency": cons, "n_cells": len(wide)})
    return pd.DataFrame(rows)


PERSONA_METRICS = ("rate_gap_aggregate", "rate_mae_item", "majority_alignment", "signed_culture_gap")


def persona_effects(metrics: pd.DataFrame, model_gap: pd.DataFrame, main_format: str) -> pd.DataFrame:
    """Appendix F.4 / figure 15: per model, each metric without and with persona and the change
    (persona - no_persona; for the MAE rows negative = persona improves), main prompt format,
    per question frame and averaged over the frames ("avg"); plus the model's norm-personal gap
    p_personal_allow - p_norm_allow (frame "avg") from ``model_norm_personal_gap``."""
    m = metrics[metrics.prompt_format == main_format]
    rows = []
    for model, g in m.groupby("model"):
        per = g.groupby(["question_type", "persona_setting"])[list(PERSONA_METRICS)].mean()
        frames = sorted(g["question_type"].unique())
        for metric in PERSONA_METRICS:
            for frame in [*frames, "avg"]:
                vals = {}
                for setting in ("no_persona", "persona"):
                    if frame == "avg":
                        s = [per.loc[(f, setting), metric] for f in frames if (f, setting) in per.index]
                        vals[setting] = float(np.mean(s)) if len(s) == len(frames) else np.nan
                    else:
                        vals[setting] = float(per[metric].get((frame, setting), np.nan))
                rows.append({"model": model, "frame": frame, "metric": metric, **vals,
                             "delta": vals["persona"] - vals["no_persona"]})
    for model, g in model_gap.groupby("model"):
        gap = g.set_index("persona_setting")["gap"]
        vals = {s: float(gap.get(s, np.nan)) for s in ("no_persona", "persona")}
        rows.append({"model": model, "frame": "avg", "metric": "norm_personal_gap", **vals,
                     "delta": vals["persona"] - vals["no_persona"]})
    return pd.DataFrame(rows, columns=["model", "frame", "metric", "no_persona", "persona", "delta"])


def persona_country_effects(model_out: pd.DataFrame, human: pd.DataFrame, main_format: str,
                            item_unit: str) -> pd.DataFrame:
    """Appendix F.4 / figure 16: persona vs no-persona rate-alignment MAE per persona country.

    For persona country c the human reference is the responses of participants from c
    (h_i = their culture-following rate on item i); the model with a persona from c (m_i, mean
    over the c personas of the item) and the same model without persona (m0_i) are compared
    with it on the items that have both.  ``mae_*`` is the paper's rate-alignment MAE
    |mean_i m_i - mean_i h_i| (see ``alignment_metrics``), ``mae_item_*`` the item-level
    mean_i |m_i - h_i|; ``delta`` = persona - no_persona (negative = persona improves).  Rows per
    model x frame, frame "avg" = mean over the frames (n_items: item x frame cells), and model
    "all" = mean over the models (n_items: the largest count of one model)."""
    cols = ["model", "persona_country", "frame", "n_items", "mae_no_persona", "mae_persona", "delta",
            "mae_item_no_persona", "mae_item_persona", "delta_item"]
    keys = item_keys(item_unit)
    d = _text_keys(model_out[(~model_out["position_audit"]) & (model_out["prompt_format"] == main_format)], keys)
    hr = (_text_keys(human, keys).groupby(["participant_country", *keys, "question_type"])["follow_culture"].mean()
          .rename("h").reset_index())
    rows = []
    for (model, q), g in d.groupby(["model", "question_type"]):
        m0 = g[g.persona_setting == "no_persona"].groupby(keys)["follow_culture"].mean().rename("m0")
        per = g[g.persona_setting == "persona"]
        for c, gc in per.groupby("persona_country"):
            mc = gc.groupby(keys)["follow_culture"].mean().rename("m")
            h = hr[(hr.participant_country == c) & (hr.question_type == q)].set_index(keys)["h"]
            j = pd.concat([mc, m0, h], axis=1, join="inner").dropna()
            if j.empty:
                continue
            r = {"model": model, "persona_country": c, "frame": q, "n_items": len(j),
                 "mae_no_persona": abs(j.m0.mean() - j.h.mean()), "mae_persona": abs(j.m.mean() - j.h.mean()),
                 "mae_item_no_persona": (j.m0 - j.h).abs().mean(), "mae_item_persona": (j.m - j.h).abs().mean()}
            rows.append(r)
    out = pd.DataFrame(rows, columns=[c for c in cols if not c.startswith("delta")])
    if out.empty:
        return pd.DataFrame(columns=cols)
    num = ["mae_no_persona", "mae_persona", "mae_item_no_persona", "mae_item_persona"]
    avg = out.groupby(["model", "persona_country"]).agg(n_items=("n_items", "sum"), **{k: (k, "mean") for k in num})
    out = pd.concat([out, avg.reset_index().assign(frame="avg")], ignore_index=True)
    allm = out.groupby(["persona_country", "frame"]).agg(n_items=("n_items", "max"), **{k: (k, "mean") for k in num})
    out = pd.concat([out, allm.reset_index().assign(model="all")], ignore_index=True)
    out["delta"] = out["mae_persona"] - out["mae_no_persona"]
    out["delta_item"] = out["mae_item_persona"] - out["mae_item_no_persona"]
    return out[cols].sort_values(["model", "frame", "persona_country"], kind="stable").reset_index(drop=True)
