"""The model card of your own model (``my_model``, rule ``model_card``): per headline measure of each
study, the model's value (computed here from its own result tables, with the study's statistics)
next to each paper model's published value (read from the claims inventory, config/claims.yaml,
labelled "published", never recomputed), a figure per measure, and the inputs each study's values
came from (real or SYNTHETIC).

A headline measure is a column of one of the papers' result tables (``Measure``): the card builds
that table for the one model, and a claim on the same table and column whose selector matches a row
(apart from ``model``) is that row's published value.
"""

from __future__ import annotations

import base64
import html
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from .claims import convert, load_claims
from .core.seeds import derive_seed

SOURCE_MINE = "this run"
SOURCE_PUBLISHED = "published"
POOLED = "the paper's models (pooled)"
COLUMNS = ["study", "measure", "label", "key", "model", "source", "value", "ci_low", "ci_high", "unit", "claim",
           "place", "inputs"]


@dataclass(frozen=True)
class Measure:
    """A headline measure: ``column`` of the paper's result table ``table``; ``keys`` identify a row
    besides the model, ``fixed`` selects the rows the card shows."""

    study: str
    name: str
    label: str
    table: str
    column: str
    unit: str
    keys: tuple[str, ...] = ()
    fixed: dict = field(default_factory=dict)
    ci: tuple[str, str] | None = None


_SUMMARY = "results/pact/alignment/summary.tsv"
_NO_PERSONA = {"frame": "avg", "persona_setting": "no_persona"}
MEASURES = (
    Measure("pact", "allow_rate", "Allow-preference rate", "results/pact/analysis/rates_by_model.tsv",
            "allow_rate", "fraction", ci=("ci_low", "ci_high")),
    Measure("pact", "majority_alignment", "Majority-choice alignment with humans (no persona)", _SUMMARY,
            "majority_alignment", "fraction", fixed=_NO_PERSONA),
    Measure("pact", "rate_mae_item", "Item-level rate MAE vs humans (no persona)", _SUMMARY, "rate_mae_item",
            "fraction difference", fixed=_NO_PERSONA),
    Measure("pact", "signed_culture_gap", "Signed culture gap vs humans (no persona)", _SUMMARY,
            "signed_culture_gap", "fraction difference", fixed=_NO_PERSONA),
    Measure("pact", "uncertainty_corr", "Uncertainty correlation with humans (no persona)", _SUMMARY,
            "uncertainty_corr", "correlation", fixed=_NO_PERSONA),
    Measure("personas", "W", "Wasserstein distance to human trait scores (trait mean, primed)",
            "results/personas/tables/distances.tsv", "W", "wasserstein distance",
            keys=("setting", "instrument", "country")),
    Measure("personas", "KS", "Kolmogorov-Smirnov statistic vs human trait scores (trait mean, primed)",
            "results/personas/tables/distances.tsv", "KS", "ratio", keys=("setting", "instrument", "country")),
    Measure("personas", "gain_pct", "Relative gain in W of CulturalPersonas over each baseline, per country",
            "results/personas/tables/table2_gains.tsv", "gain_pct", "percent", keys=("setting", "code", "baseline")),
    Measure("monopolet", "SAA", "Stance agreement with the panel (SAA)", "results/monopolet/tables/agreement.tsv",
            "SAA", "fraction", keys=("comparison",), ci=("SAA_ci_low", "SAA_ci_high")),
    Measure("monopolet", "EAA", "Element agreement with the panel (EAA)", "results/monopolet/tables/agreement.tsv",
            "EAA", "fraction", keys=("comparison",), ci=("EAA_ci_low", "EAA_ci_high")),
)


def measures_of(study: str) -> list[Measure]:
    return [m for m in MEASURES if m.study == study]


def figure_names(studies: list[str]) -> list[str]:
    """The card's figures (one per measure) of the studies it runs, in order."""
    return [m.name for s in studies for m in measures_of(s)]


# ---------------------------------------------------------------- the model's own result tables


def pact_tables(shards: list[str], survey: str, responses: str, model: str, kind: str, main_format: str,
                item_unit: str, n_boot: int, seed: int) -> dict[str, pd.DataFrame]:
    """The PACT result tables of one model: allow-preference rate (with its bootstrap CI) from its
    behaviour shards, the figure-7 alignment summary from its survey answers and the human data."""
    from .core.tables import read_tsv
    from .pact.alignment import alignment_metrics, alignment_summary, read_surveys
    from .pact.analysis import rates_by_model, shard_decisions
    from .pact.human import read_responses

    parts = [shard_decisions(read_tsv(p, empty_as_na=True), model, kind) for p in shards]
    d = pd.concat(parts, ignore_index=True)
    item_metrics = alignment_metrics(read_surveys([survey]), read_responses(responses), item_unit)
    return {"results/pact/analysis/rates_by_model.tsv": rates_by_model(d, [], n_boot, seed),
            _SUMMARY: alignment_summary(item_metrics, main_format)}


def personas_tables(mcs_samples: list[str], oeg_responses: list[str], human: str) -> dict[str, pd.DataFrame]:
    """The CulturalPersonas tables of one model: W and KS per setting x instrument x country (the trait
    mean, primed) and the Table 2 gains per country (over this model alone)."""
    from .personas.metrics import distances, gains

    oeg_samples = [f.replace(".responses.tsv", ".samples.tsv") for f in oeg_responses]
    dist = distances(list(mcs_samples) + oeg_samples, pd.read_csv(human, sep="\t"))
    primed = dist[dist["priming"] == "primed"]
    per_country = (primed.groupby(["model", "setting", "instrument", "country"])[["W", "KS"]].mean().reset_index())
    table2 = pd.concat([gains(dist, "mcs", False), gains(dist, "oeg", False)], ignore_index=True)
    return {"results/personas/tables/distances.tsv": per_country, "results/personas/tables/table2_gains.tsv": table2}


def bootstrap_mean_ci(values, n_boot: int, seed: int, item: tuple = (),
                      level: float = 0.95) -> tuple[float, float]:
    """Percentile bootstrap CI of the mean of ``values`` (NaN dropped; NaN when none are left); each
    ``item`` (e.g. the model and the measure) draws its own stream, ``derive_seed(seed, "monopolet",
    "analysis", "model_card", *item)``."""
    v = np.asarray(pd.to_numeric(pd.Series(values), errors="coerce").dropna(), dtype=float)
    if len(v) == 0:
        return (math.nan, math.nan)
    rng = np.random.default_rng(derive_seed(seed, "monopolet", "analysis", "model_card", *item))
    means = v[rng.integers(0, len(v), size=(n_boot, len(v)))].mean(axis=1)
    a = (1 - level) / 2
    return float(np.quantile(means, a)), float(np.quantile(means, 1 - a))


def monopolet_tables(matching: str, solutions: str, panel: str, model: str, n_boot: int,
                     seed: int) -> dict[str, pd.DataFrame]:
    """The Danish-norms agreement of one model with the panel (SAA, EAA), with bootstrap CIs over dilemmas."""
    from .core.tables import read_tsv
    from .monopolet.metrics import agreement_tables

    comp = f"{model}_vs_panel"
    summary, per_dilemma, _ = agreement_tables({comp: read_tsv(matching, empty_as_na=True)},
                                               {model: read_tsv(solutions, empty_as_na=True),
                                                "panel": read_tsv(panel, empty_as_na=True)})
    summary = summary.copy()
    summary["model"] = model
    for col in ("SAA", "EAA"):
        lo, hi = bootstrap_mean_ci(per_dilemma[col], n_boot, seed, (model, col))
        summary[f"{col}_ci_low"], summary[f"{col}_ci_high"] = lo, hi
    return {"results/monopolet/tables/agreement.tsv": summary}


# ---------------------------------------------------------------- mine next to published


def _key_text(key: dict) -> str:
    return ", ".join(f"{k} {v}" for k, v in key.items()) or "all"


def _num(x) -> float:
    try:
        return float(x)
    except (TypeError, ValueError):
        return math.nan


def card_rows(model: str, tables: dict[str, dict[str, pd.DataFrame]], claims_path: str | Path,
              inputs: dict[str, str], figure_data: dict[str, pd.DataFrame] | None = None) -> pd.DataFrame:
    """The card's long table: per measure and row key, the model's value ("this run") and each
    matching claim's value ("published", in the measure's unit).  ``tables``: {study: {result
    table: the model's table}}; ``inputs``: {study: "real" / "SYNTHETIC: <keys>"}.  A claim whose
    value the paper does not print but the authors' released figure data hold (``value_from``) is
    read from ``figure_data`` ({result table: its rows}, e.g. the PACT site-data table) and left out
    when that table is not given."""
    claims = [c for c in load_claims(claims_path) if c.get("kind") == "value"]
    rows = []
    for study, by_table in tables.items():
        for m in measures_of(study):
            t = by_table.get(m.table)
            if t is None or m.column not in t.columns:
                continue
            for k, v in m.fixed.items():
                t = t[t[k].astype(str) == str(v)] if k in t.columns else t.iloc[0:0]
            for r in t.to_dict("records"):
                key = {**m.fixed, **{k: r[k] for k in m.keys}}
                lo, hi = (_num(r.get(m.ci[0])), _num(r.get(m.ci[1]))) if m.ci else (math.nan, math.nan)
                rows.append({"study": study, "measure": m.name, "label": m.label, "key": _key_text(key),
                             "model": model, "source": SOURCE_MINE, "value": _num(r[m.column]), "ci_low": lo,
                             "ci_high": hi, "unit": m.unit, "claim": "", "place": "", "inputs": inputs[study]})
                rows += _published(m, key, claims, figure_data or {})
    return pd.DataFrame(rows, columns=COLUMNS)


def _published(m: Measure, key: dict, claims: list[dict], figure_data: dict[str, pd.DataFrame]) -> list[dict]:
    out = []
    for c in claims:
        if c["result"] != m.table or c["column"] != m.column:
            continue
        where = dict(c.get("where") or {})
        paper_model = where.pop("model", None)
        if any(k not in key or str(key[k]) != str(v) for k, v in where.items()):
            continue
        if "value" in c:
            value, unit, source = float(c["value"]), c["unit"], "the paper"
        else:  # value_from: the authors' released figure data
            found = _figure_value(c["value_from"], figure_data)
            if found is None:
                continue
            value, unit = found
            unit, source = unit or c["unit"], "the authors' figure data"
        value = convert(value, unit, c.get("result_unit") or m.unit)
        out.append({"study": m.study, "measure": m.name, "label": m.label, "key": _key_text(key),
                    "model": paper_model or POOLED, "source": SOURCE_PUBLISHED, "value": value, "ci_low": math.nan,
                    "ci_high": math.nan, "unit": m.unit, "claim": c["id"], "place": f"{c['paper']}: {c['place']}",
                    "inputs": source})
    return out


def _figure_value(vf: dict, figure_data: dict[str, pd.DataFrame]) -> tuple[float, str | None] | None:
    """The one row of the figure-data table ``vf`` names: (value, its unit); None when the table was
    not given or holds no such row."""
    df = figure_data.get(vf["result"])
    if df is None:
        return None
    sel = df
    for k, v in (vf.get("where") or {}).items():
        sel = sel[sel[k].astype(str) == str(v)] if k in sel.columns else sel.iloc[0:0]
    if len(sel) != 1:
        return None
    row = sel.iloc[0]
    unit = vf.get("unit") or (str(row["unit"]) if "unit" in sel.columns and str(row["unit"]) else None)
    return float(row[vf["column"]]), unit


# ---------------------------------------------------------------- figures and page


def plot_measure(rows: pd.DataFrame, measure: Measure, model: str, out: str | Path, names: dict | None = None,
                 synthetic: list[str] | None = None) -> Path:
    """One measure: a horizontal bar per row key and model, this model's bars solid (with its CI where
    it has one), the published values hatched and labelled "published"."""
    import matplotlib.pyplot as plt

    from .core import figures as figs

    d = rows[rows["measure"] == measure.name]
    n = max(len(d), 1)
    fig, ax = plt.subplots(figsize=(6.4, 1.2 + 0.28 * n))
    if d.empty:
        figs.no_data(ax, f"{measure.label}: no value")
    else:
        labels, colors = [], []
        for i, r in enumerate(d.itertuples(index=False)):
            mine = r.source == SOURCE_MINE
            who = figs.display(r.model, names)
            labels.append(f"{who}{'' if mine else ' (published)'} | {r.key}")
            value = r.value if not math.isnan(r.value) else 0.0
            ax.barh(i, value, color="#1f77b4" if mine else "#bbbbbb", hatch=None if mine else "///",
                    edgecolor="#444444")
            if mine and not (math.isnan(r.ci_low) or math.isnan(r.ci_high)):
                ax.errorbar(value, i, xerr=[[value - r.ci_low], [r.ci_high - value]], color="black", capsize=3)
            if math.isnan(r.value):
                ax.text(0, i, " n/a", va="center", fontsize=7)
            colors.append(mine)
        ax.set_yticks(range(len(labels)), labels, fontsize=7)
        ax.invert_yaxis()
    ax.set_xlabel(f"{measure.column} ({measure.unit})")
    ax.set_title(f"{measure.label}: {figs.display(model, names)} vs the papers' models", fontsize=9)
    return figs.save(fig, out, synthetic)


def _fmt(v: float) -> str:
    return "" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.4g}"


# what the card's table shows for a value the measure's statistic does not give on the model's outputs
NOT_DEFINED = "not defined"


def card_html(model: str, spec: dict, rows: pd.DataFrame, skips: dict[str, str], studies: list[str],
              figures: dict[str, str | Path], inputs: dict[str, str], embed: bool = True) -> str:
    """The card as one self-contained HTML page (figures embedded).  ``embed=False``: the page the report
    shows, each figure named instead (its own entry in the report's section; a report shows an HTML entry
    from a data URI, which a browser loads up to 2 MiB, less than the card with its figures)."""
    esc = html.escape
    out = ["<!DOCTYPE html>", "<html lang=\"en\"><head><meta charset=\"utf-8\">",
           f"<title>Model card: {esc(model)}</title>",
           "<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em}"
           "table{border-collapse:collapse;font-size:0.85em}td,th{border:1px solid #ccc;padding:2px 6px}"
           ".published{color:#555;font-style:italic}.synthetic{color:#8a1c00;font-weight:bold}"
           ".skipped{color:#8a1c00}img{max-width:100%}</style></head><body>",
           f"<h1>Model card: {esc(model)}</h1>",
           "<p>The model's value of each headline measure of the three studies, next to every paper model's "
           "<span class=\"published\">published</span> value (config/claims.yaml; read, never recomputed). "
           f"A value &quot;{NOT_DEFINED}&quot; is one the measure's statistic does not give on these outputs (a "
           "correlation of answers that do not vary, say).</p>",
           "<table><tr><th>key</th><th>value</th></tr>"]
    # the weights folder where it is the user's own (source: local), not a download's target
    shown = ("backend", "source", *(("path",) if spec.get("source") == "local" else ()), "hub_id", "revision",
             "scoring", "family", "kind")
    for k in shown:
        if spec.get(k) is not None:
            out.append(f"<tr><td>{esc(k)}</td><td>{esc(str(spec[k]))}</td></tr>")
    out.append("</table>")
    for study in ("pact", "personas", "monopolet"):
        out.append(f"<h2>{esc(study)}</h2>")
        if study in skips:
            out.append(f"<p class=\"skipped\">Skipped: {esc(skips[study])}</p>")
            continue
        if study not in studies:
            continue
        mark = inputs.get(study, "")
        cls = " class=\"synthetic\"" if mark.startswith("SYNTHETIC") else ""
        out.append(f"<p>Inputs: <span{cls}>{esc(mark)}</span></p>")
        for m in measures_of(study):
            d = rows[rows["measure"] == m.name]
            out.append(f"<h3>{esc(m.label)}</h3>")
            if d.empty:
                out.append("<p>No value (the model's table has no row for this measure).</p>")
            else:
                if not (d["source"] == SOURCE_PUBLISHED).any():
                    out.append("<p>No published value of this measure in config/claims.yaml.</p>")
                out.append("<table><tr><th>row</th><th>model</th><th>source</th><th>value</th><th>95% CI</th>"
                           "<th>unit</th><th>claim</th><th>where in the paper</th></tr>")
                for r in d.itertuples(index=False):
                    cls = " class=\"published\"" if r.source == SOURCE_PUBLISHED else ""
                    ci = "" if math.isnan(r.ci_low) else f"{_fmt(r.ci_low)} to {_fmt(r.ci_high)}"
                    out.append(f"<tr{cls}><td>{esc(r.key)}</td><td>{esc(r.model)}</td><td>{esc(r.source)}</td>"
                               f"<td>{_fmt(r.value) or NOT_DEFINED}</td><td>{ci}</td><td>{esc(r.unit)}</td>"
                               f"<td>{esc(r.claim)}</td><td>{esc(r.place)}</td></tr>")
                out.append("</table>")
            fig = figures.get(m.name)
            if fig and not embed:
                out.append(f"<p class=\"figure\">Figure: the entry &quot;{esc(m.name)}: {esc(model)} vs the papers' "
                           "models&quot; of this section.</p>")
            elif fig and Path(fig).exists():
                data = base64.b64encode(Path(fig).read_bytes()).decode("ascii")
                out.append(f"<p><img alt=\"{esc(m.label)}\" src=\"data:image/png;base64,{data}\"></p>")
    out.append("</body></html>")
    return "\n".join(out)
