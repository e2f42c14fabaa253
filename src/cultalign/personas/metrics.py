"""Distances to the human distributions and the paper's tables (1, 2, 3, 6, 7, Figure 6 data).

Relative improvement of CulturalPersonas over a baseline (Tables 2, 6, 7):
100 * (W_baseline - W_cp) / W_baseline, per model and trait on the primed
condition.  Tables 6/7 average the per-trait gain over models; Table 2's
cell (``gain_pct``) is the mean of the five per-trait gains of Tables 6/7
(the paper's Brazil/BFI cell 19.1 = (19.9+19.8+31.3+2.4+22.2)/5), i.e. the
mean over models and traits of the per-model, per-trait gain.  Table 2 also
keeps ``gain_of_mean_w``: the gain of the trait-mean W per model, averaged
over models (a ratio of means, which weights traits by their W; not the
paper's number).  The priming ablation compares
primed and unprimed W per trait with a Wilcoxon signed-rank test over the
five traits (exact p-value floor 0.0625 for n = 5: two-sided significance at
0.05 is impossible with five pairs, as the paper's stars must have come from
more pairs; we report the test as specified).
"""

from __future__ import annotations

import itertools
import math
import re

import numpy as np
import pandas as pd
from scipy import stats

from cultalign.core.inputs import read_table, row_error
from cultalign.stats.distances import compare, relative_improvement, significance_stars

from .common import TRAITS, ttr_of_sentences

SHORT = {"usa": "US", "brazil": "BR", "india": "IN", "japan": "JP", "saudiarabia": "SA", "southafrica": "ZA"}
PAPER_NAMES = {"usa": "USA", "brazil": "Brazil", "india": "India", "japan": "Japan", "saudiarabia": "Saudi Arabia",
               "southafrica": "South Africa"}
_PATH = re.compile(r"results/personas/(mcs|oeg)/([^/]+)/([^/]+)/([^/_]+)_(primed|unprimed)\.(samples|responses)\.tsv$")


def parse_path(p: str) -> dict:
    m = _PATH.search(str(p).replace("\\", "/"))
    if not m:
        raise ValueError(f"unexpected result path {p}")
    return dict(zip(("setting", "model", "instrument", "country", "priming"), m.groups()[:5]))


def distances(sample_files: list[str], human: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for f in sample_files:
        meta = parse_path(f)
        s = pd.read_csv(f, sep="\t")
        h = human[human["country"] == meta["country"]]
        for t in TRAITS:
            rows.append({**meta, "trait": t, **compare(s[t] if t in s else [], h[t])})
    return pd.DataFrame(rows).rename(columns={"n_a": "n_model", "n_b": "n_human"})


def gains(dist: pd.DataFrame, setting: str, by_trait: bool) -> pd.DataFrame:
    """Relative gains of CulturalPersonas over each baseline (Tables 6/7 with ``by_trait``, Table 2 without).

    Per model and trait: 100 * (W_baseline - W_cp) / W_baseline.  Table 2's ``gain_pct`` is the mean of
    the per-trait gains (the paper's definition); ``gain_of_mean_w`` is the gain of the trait-mean W."""
    d = dist[(dist["setting"] == setting) & (dist["priming"] == "primed")]
    keys = ["model", "country", "instrument", "trait"]
    w = d.groupby(keys)["W"].mean().reset_index()
    cp = w[w["instrument"] == "cp"].drop(columns="instrument").rename(columns={"W": "W_cp"})
    base = w[w["instrument"] != "cp"].rename(columns={"instrument": "baseline", "W": "W_baseline"})
    m = base.merge(cp, on=["model", "country", "trait"])
    m["gain_pct"] = [relative_improvement(b, c) for b, c in zip(m["W_baseline"], m["W_cp"])]
    if by_trait:
        out_keys = ["country", "baseline", "trait"]
        out = m.groupby(out_keys).agg(gain_pct=("gain_pct", "mean"), W_baseline=("W_baseline", "mean"),
                                      W_cp=("W_cp", "mean"), n_models=("model", "nunique")).reset_index()
    else:
        # the paper's Table 2 cell: mean over traits of the Table 6/7 gains (each a mean over models)
        per_trait = m.groupby(["country", "baseline", "trait"])["gain_pct"].mean().reset_index()
        out = per_trait.groupby(["country", "baseline"]).agg(gain_pct=("gain_pct", "mean"),
                                                             n_traits=("trait", "nunique")).reset_index()
        # the other reading, kept and named: the gain of the trait-mean W per model, averaged over models
        mw = m.groupby(["model", "country", "baseline"]).agg(W_baseline=("W_baseline", "mean"),
                                                             W_cp=("W_cp", "mean")).reset_index()
        mw["gain_of_mean_w"] = [relative_improvement(b, c) for b, c in zip(mw["W_baseline"], mw["W_cp"])]
        other = mw.groupby(["country", "baseline"]).agg(gain_of_mean_w=("gain_of_mean_w", "mean"),
                                                        W_baseline=("W_baseline", "mean"), W_cp=("W_cp", "mean"),
                                                        n_models=("model", "nunique")).reset_index()
        out = out.merge(other, on=["country", "baseline"], how="left")
    out.insert(0, "setting", setting)
    out.insert(2, "code", [SHORT.get(c, c.upper()) for c in out["country"]])
    return out


def human_pairwise(human: pd.DataFrame, countries: list[str]) -> pd.DataFrame:
    present = [c for c in countries if (human["country"] == c).any()]
    rows = []
    for a, b in itertools.combinations(present, 2):
        for t in TRAITS:
            r = compare(human.loc[human["country"] == a, t], human.loc[human["country"] == b, t])
            rows.append({"pair": f"{PAPER_NAMES.get(a, a)}\u2013{PAPER_NAMES.get(b, b)}", "a": a, "b": b, "trait": t,
                         **r, "stars": significance_stars(r["KS_p"])})
    return pd.DataFrame(rows)


def priming_ablation(dist: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for (setting, model, inst, country), g in dist.groupby(["setting", "model", "instrument", "country"]):
        p = g[g["priming"] == "primed"].set_index("trait")["W"]
        u = g[g["priming"] == "unprimed"].set_index("trait")["W"]
        common = [t for t in TRAITS if t in p.index and t in u.index and np.isfinite(p[t]) and np.isfinite(u[t])]
        if not common:
            continue
        diff = np.array([u[t] - p[t] for t in common])
        if len(common) >= 2 and np.any(diff != 0):
            w = stats.wilcoxon([u[t] for t in common], [p[t] for t in common])
            stat, pv = float(w.statistic), float(w.pvalue)
        else:
            stat, pv = math.nan, math.nan
        wp, wu = float(np.mean([p[t] for t in common])), float(np.mean([u[t] for t in common]))
        rows.append({"setting": setting, "model": model, "instrument": inst, "country": country,
                     "W_primed": wp, "W_unprimed": wu, "improvement_pct": relative_improvement(wu, wp),
                     "n_traits": len(common), "wilcoxon_stat": stat, "wilcoxon_p": pv, "stars": significance_stars(pv)})
    return pd.DataFrame(rows)


def _note(msg: str) -> pd.DataFrame:
    return pd.DataFrame([{"note": msg}])


def oeg_human_correlation(responses: pd.DataFrame, path: str | None) -> pd.DataFrame:
    if not path:
        return _note("no annotation file configured (personas.annotations.oeg_scores): not computed")
    ann = read_table(path, sep="\t", dtype={"item_id": str},
                     required=["instrument", "item_id", "country", "model", "priming", "human_score"],
                     numeric=["human_score"], nonempty=["human_score"])
    m = ann.assign(_pos=range(len(ann))).merge(responses, on=["instrument", "item_id", "country", "model", "priming"],
                                                how="left")
    if m["expected_score"].isna().any():
        raise row_error(ann, int(m.loc[m["expected_score"].isna(), "_pos"].iloc[0]), None,
                        "no OEG response matches this annotation (instrument, item_id, country, model, priming)")
    rows = []
    for c, g in list(m.groupby("country")) + [("all", m)]:
        r = stats.pearsonr(g["expected_score"], g["human_score"]) if len(g) > 2 else None
        rows.append({"country": c, "n": len(g), "pearson_r": r.statistic if r else math.nan,
                     "p": r.pvalue if r else math.nan})
    return pd.DataFrame(rows)


def annotation_agreement(path: str | None) -> pd.DataFrame:
    if not path:
        return _note("no validation annotation file configured (personas.annotations.validation): not computed")
    from cultalign.stats.agreement import cohen_kappa

    ann = read_table(path, sep="\t", dtype=str, required=["country", "task", "unit", "annotator", "label"])
    rows = []
    for (c, task), g in ann.groupby(["country", "task"]):
        wide = g.pivot_table(index="unit", columns="annotator", values="label", aggfunc="first").dropna()
        if wide.shape[1] != 2:
            raise ValueError(f"{path}: {c}/{task}: expected two annotators, found {wide.shape[1]}")
        a, b = wide.iloc[:, 0], wide.iloc[:, 1]
        rows.append({"country": c, "task": task, "units": len(wide), "percent_agreement": float((a == b).mean()),
                     "cohen_kappa": cohen_kappa(a, b)})
    return pd.DataFrame(rows)


def build_tables(mcs_files, oeg_response_files, human_path, oeg_scores: str | None,
                 validation: str | None) -> dict[str, pd.DataFrame]:
    """Every table of the evaluation by name: distances, the paper's tables, validity counts, OEG
    calibration and the annotation checks (``oeg_scores`` / ``validation``: annotation files or None).
    Table 1 (human data alone) is :func:`human_tables`, Table 3 (OEG answers alone)
    :func:`oeg_tables`."""
    human = pd.read_csv(human_path, sep="\t")
    oeg_samples = [f.replace(".responses.tsv", ".samples.tsv") for f in oeg_response_files]
    dist = distances(list(mcs_files) + oeg_samples, human)
    tables = {"distances": dist,
              "table2_gains": pd.concat([gains(dist, "mcs", False), gains(dist, "oeg", False)], ignore_index=True),
              "table6_mcs_trait_gains": gains(dist, "mcs", True),
              "table7_oeg_trait_gains": gains(dist, "oeg", True),
              "priming_ablation": priming_ablation(dist)}
    resp = read_oeg_responses(oeg_response_files)
    vc = []
    for f in mcs_files:
        it = pd.read_csv(f.replace(".samples.tsv", ".items.tsv"), sep="\t")
        v = it["valid"].astype(bool)
        vc.append({**parse_path(f), "items": len(it), "valid": int(v.sum()), "invalid": int((~v).sum()),
                   "mean_valid_mass": float(it["valid_mass"].mean()) if len(it) else math.nan,
                   "min_valid_mass": float(it["valid_mass"].min()) if len(it) else math.nan})
    for f in oeg_response_files:
        r = pd.read_csv(f, sep="\t", keep_default_na=False)
        v = r["valid"].astype(bool)
        vc.append({**parse_path(f), "items": len(r), "valid": int(v.sum()), "invalid": int((~v).sum()),
                   "mean_valid_mass": math.nan, "min_valid_mass": math.nan})
    tables["valid_counts"] = pd.DataFrame(vc)
    if len(resp):
        num = ["tau", "calibration_n_probes", "calibration_loglik_tau1", "calibration_loglik_fit", "calibration_acc",
               "max_prob_uncalibrated", "max_prob", "norm_entropy_uncalibrated", "norm_entropy"]
        for c in num:
            resp[c] = pd.to_numeric(resp[c], errors="coerce")
        tables["oeg_calibration"] = (resp.groupby(["model", "instrument", "country", "priming"])[num].mean()
                                     .reset_index())
    else:
        tables["oeg_calibration"] = _note("no OEG responses")
    tables["oeg_human_correlation"] = oeg_human_correlation(resp, oeg_scores)
    tables["annotation_agreement"] = annotation_agreement(validation)
    return tables


def read_oeg_responses(files) -> pd.DataFrame:
    """The OEG response tables, one row per answer, with the model of each file."""
    resp = []
    for f in files:
        r = pd.read_csv(f, sep="\t", dtype={"item_id": str}, keep_default_na=False)
        r["model"] = parse_path(f)["model"]
        resp.append(r)
    return pd.concat(resp, ignore_index=True) if resp else pd.DataFrame()


def ttr_table(resp: pd.DataFrame, sentences: int) -> pd.DataFrame:
    """Table 3: mean type-token ratio of the valid primed OEG answers per instrument, country, trait,
    each answer's TTR over its first ``sentences`` complete sentences (paper section 5.2: one sentence,
    uniform length).  ``responses`` counts the answers averaged; ``short`` the valid answers left out
    because they have fewer complete sentences (e.g. cut at the token limit)."""
    ok = resp[resp["valid"].astype(bool)] if len(resp) else resp
    if not len(ok):
        return _note("no OEG responses")
    ok = ok[ok["priming"] == "primed"]
    ok = ok.assign(ttr=[ttr_of_sentences(t, sentences) for t in ok["response"]])
    return (ok.groupby(["instrument", "country", "trait"])
            .agg(ttr=("ttr", "mean"), responses=("ttr", "count"),
                 short=("ttr", lambda x: int(x.isna().sum()))).reset_index()
            .assign(ttr_sentences=sentences))


def oeg_tables(oeg_response_files, ttr_sentences: int) -> dict[str, pd.DataFrame]:
    """The tables of the OEG answers alone, by name (Table 3: type-token ratio over the first
    ``ttr_sentences`` sentences of each answer)."""
    return {"table3_ttr": ttr_table(read_oeg_responses(oeg_response_files), ttr_sentences)}


def human_tables(human_path, countries: list[str]) -> dict[str, pd.DataFrame]:
    """The tables of the human data alone, by name (Table 1: pairwise country distances, in the
    order of the configured ``countries``)."""
    human = pd.read_csv(human_path, sep="\t")
    return {"table1_human_pairwise": human_pairwise(human, list(countries))}


def human_data_label(source: str) -> str:
    """What the human ground truth is (``personas.human.source``), for the tables' sidecars."""
    return "SYNTHETIC demo data" if source == "synthetic" else "Johnson IPIP-NEO"
