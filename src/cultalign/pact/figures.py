"""Figures 3-7 of the paper and the appendix figures, drawn from the result tables in the
project's one figure style (``cultalign.core.figures``: 300 dpi, labelled axes, legends outside
the data, display names, the synthetic mark)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..core import figures as figs
from ..core.figures import plt
from ..core.tables import read_tsv
from .geography import REGIONS

CONFIGURATIONS = {
    "C1": "C1: actor personal, receiver norm",
    "C2": "C2: actor norm, receiver personal",
    "C3": "C3: both personal",
}
RATE = "Allow-preference rate\n(share of valid decisions)"
PP = "Difference in allow-preference rate\n(percentage points)"
# the roles drawn per model in Figures 5 A/B and 12 (rows of analysis.figure5_demographic_effects; not
# imported, so that an edit of the analysis module does not rerun the figure rules)
ROLES = ("actor", "receiver")


def _read(path: str) -> pd.DataFrame:
    return read_tsv(path, empty_as_na=True)


def _save(fig, out: str, synthetic: bool = False) -> None:
    """Save with the synthetic mark of the running job; outside a job, ``synthetic`` (the human
    data are synthetic) marks the figure."""
    keys = figs.synthetic_inputs() or (["synthetic human data"] if synthetic else [])
    figs.save(fig, out, keys)


def _human_synthetic(gaps: str) -> bool:
    return bool((_read(gaps)["data"] == "synthetic").all())


def main_figure(number: str, inputs, out: str, figure7_setting: str = "no_persona") -> None:
    """One of Figures 3-7 from its own result tables (``inputs``: name -> path, as the
    rule names them); the human-study figures (6, 7) say when the human data are synthetic;
    Figure 7 A-C show the ``figure7_setting`` rows of the alignment summary."""
    number = str(number)
    if number == "3":
        figure3(_read(inputs["by_model_config"]), out)
    elif number == "4":
        figure4(_read(inputs["by_model_kind"]), out, _read(inputs["model_pairs"]))
    elif number == "5":
        figure5(_read(inputs["demographics"]), _read(inputs["regions"]), out)
    elif number == "6":
        figure6(_read(inputs["gaps"]), _read(inputs["agreement"]), out, _human_synthetic(inputs["gaps"]))
    elif number == "7":
        figure7(_read(inputs["alignment"]), out, _human_synthetic(inputs["gaps"]), figure7_setting)
    else:
        raise ValueError(f"PACT main figures are 3-7, not {number!r}")


def appendix_figures(persona: str, persona_country: str, fig15: str, fig16: str) -> None:
    """Appendix figures 15 and 16 (persona vs no persona); the B.2 heatmap is
    :func:`region_heatmap_figure` (model behaviour alone)."""
    effects = _read(persona)
    synthetic = (effects["human_data"] == "synthetic").all() if len(effects) else False
    figure15(effects, fig15, synthetic)
    figure16(_read(persona_country), fig16, synthetic)


def region_heatmap_figure(region_pairs: str, out: str) -> None:
    """Appendix B.2 heatmap from the region-pair rates table (path)."""
    region_heatmap(_read(region_pairs), out, REGIONS)


def _bars(ax, labels, values, err=None, color=None, title="", ylabel="", xlabel="Model"):
    x = np.arange(len(labels))
    ax.bar(x, values, yerr=err, color=color, capsize=3)
    ax.set_xticks(x, figs.displays(labels), rotation=30, ha="right")
    ax.set_title(title)
    ax.set_ylabel(ylabel)
    ax.set_xlabel(xlabel)
    ax.axhline(0, color="black", lw=0.5)


def figure3(by_model_config: pd.DataFrame, out: str) -> None:
    """Allow-preference rate per model and configuration C1-C3 (with bootstrap CIs)."""
    fig, ax = plt.subplots(figsize=(7, 3.5))
    models = sorted(by_model_config["model"].unique())
    confs = sorted(by_model_config["configuration"].unique())
    w = 0.8 / max(len(confs), 1)
    for j, c in enumerate(confs):
        g = by_model_config[by_model_config.configuration == c].set_index("model").reindex(models)
        err = np.vstack([g.allow_rate - g.ci_low, g.ci_high - g.allow_rate]).clip(min=0)
        ax.bar(np.arange(len(models)) + j * w, g.allow_rate, w, yerr=err, capsize=2,
               label=CONFIGURATIONS.get(c, c))
    ax.set_xticks(np.arange(len(models)) + w * (len(confs) - 1) / 2, figs.displays(models))
    ax.set_xlabel("Model")
    ax.set_ylabel(RATE)
    ax.set_ylim(0, 1)
    figs.legend_outside(ax, title="Preference configuration")
    ax.set_title("Figure 3: allow-preference rate by model and configuration (error bars: bootstrap 95% CI)")
    _save(fig, out)


def figure4(by_model_kind: pd.DataFrame, out: str, pairs: pd.DataFrame | None = None) -> None:
    """Figure 4: allow-preference rate per model and kind; with configured pairs, one panel
    per comparison (base -> instruct, small -> large) with the difference and its CI."""
    kinds = [] if pairs is None else [k for k in ("base_instruct", "small_large") if (pairs.comparison == k).any()]
    fig, axes = plt.subplots(1, 1 + len(kinds), figsize=(6 + 4 * len(kinds), 3.5), squeeze=False)
    ax = axes[0][0]
    lab = by_model_kind["model"] + " (" + by_model_kind["model_kind"] + ")"
    colors = ["tab:gray" if k == "base" else "tab:blue" for k in by_model_kind["model_kind"]]
    _bars(ax, lab.tolist(), by_model_kind["allow_rate"].tolist(), color=colors,
          title="A: allow-preference rate by model (grey: base, blue: instruct)", ylabel=RATE)
    ax.set_ylim(0, 1)
    if (by_model_kind["model_kind"] == "base").sum() == 0:
        ax.text(0.5, 0.9, "no base model configured in this run", transform=ax.transAxes, ha="center")
    titles = {"base_instruct": "instruct minus base", "small_large": "large minus small"}
    for k, (ax, kind) in enumerate(zip(axes[0][1:], kinds)):
        g = pairs[pairs.comparison == kind]
        diff = 100 * g["diff_b_minus_a"]
        err = np.vstack([diff - 100 * g["ci_low"], 100 * g["ci_high"] - diff]).clip(min=0)
        _bars(ax, (g["a"].map(figs.display) + " -> " + g["b"].map(figs.display)).tolist(), diff.tolist(), err=err,
              color=["tab:red" if v > 0 else "tab:green" for v in diff.fillna(0)],
              title=f"{'BC'[k]}: {titles[kind]} (error bars: 95% CI)", ylabel=PP, xlabel="Model pair")
    fig.suptitle("Figure 4: base vs instruct (and small vs large) behaviour")
    fig.tight_layout()
    _save(fig, out)


def figure5(demo: pd.DataFrame, regions: pd.DataFrame, out: str) -> None:
    """A/B: age and gender effects per model for the actor and the receiver
    (``analysis.figure5_demographic_effects``); C: receiver-region deltas averaged across models."""
    fig, axes = plt.subplots(1, 3, figsize=(12, 3.8))
    d = demo[demo.model != "all"]
    models = sorted(d["model"].unique())
    w = 0.8 / len(ROLES)
    for ax, factor, title in ((axes[0], "age", "A: age (younger minus older)"),
                              (axes[1], "gender", "B: gender (female minus male)")):
        for j, role in enumerate(ROLES):
            g = d[(d.factor == factor) & (d.role == role)].set_index("model").reindex(models)
            ax.bar(np.arange(len(models)) + j * w, g["delta_pp"].fillna(0), w, label=role)
        ax.set_xticks(np.arange(len(models)) + w * (len(ROLES) - 1) / 2, figs.displays(models),
                      rotation=30, ha="right")
        ax.axhline(0, color="black", lw=0.5)
        ax.set_title(title)
        ax.set_ylabel(PP)
        ax.set_xlabel("Model")
    figs.legend_outside(axes[1], title="Demographic of")
    r = regions.sort_values("delta_pp")
    _bars(axes[2], r["region"].tolist(), r["delta_pp"].tolist(),
          color=["salmon" if v < 0 else "mediumseagreen" for v in r["delta_pp"]],
          title="C: receiver region (region rate minus overall rate)", ylabel=PP, xlabel="Receiver region")
    fig.suptitle("Figure 5: demographic and regional effects")
    fig.tight_layout()
    figs.note(fig, "pp = percentage points of the allow-preference rate. A-B: positive = more preference "
              "allowance for the younger / female actor or receiver (all decisions of the main models whose "
              "prompt shows the attribute). C: averaged across models; salmon = more culture-following than "
              "overall, green = more preference-allowing.")
    _save(fig, out)


def figure12(effects: pd.DataFrame, out: str) -> None:
    """Appendix B.4 Figure 12: age (younger - older) and gender (female - male) effects in pp per
    model and source, one panel per factor x role (actor, receiver)."""
    d = effects[effects.model != "all"]
    models = sorted(d["model"].unique())
    sources = sorted(d["source"].unique())
    fig, axes = plt.subplots(2, 2, figsize=(11, 7), sharey="row", squeeze=False)
    w = 0.8 / max(len(sources), 1)
    for i, (factor, what) in enumerate((("age", "younger minus older"), ("gender", "female minus male"))):
        for j, role in enumerate(ROLES):
            ax = axes[i][j]
            for k, src in enumerate(sources):
                g = d[(d.factor == factor) & (d.role == role) & (d.source == src)].set_index("model").reindex(models)
                ax.bar(np.arange(len(models)) + k * w, g["delta_pp"].fillna(0), w, label=src)
            ax.set_xticks(np.arange(len(models)) + w * (len(sources) - 1) / 2, figs.displays(models),
                          rotation=30, ha="right")
            ax.axhline(0, color="black", lw=0.5)
            ax.set_title(f"{'ABCD'[2 * i + j]}: {factor}, {role} ({what})")
            ax.set_ylabel(PP)
            ax.set_xlabel("Model")
    figs.legend_outside(axes[0][1], title="Source")
    fig.suptitle("Figure 12: age and gender effects per model and source")
    fig.tight_layout()
    figs.note(fig, "pp = percentage points of the allow-preference rate; positive = more preference allowance "
              "for the younger / female actor or receiver (decisions of the main models whose prompt shows the "
              "attribute).")
    _save(fig, out)


def figure12_from(effects: str, out: str) -> None:
    figure12(_read(effects), out)


def figure6(gaps: pd.DataFrame, agree: pd.DataFrame, out: str, synthetic: bool) -> None:
    fig, axes = plt.subplots(1, 2, figsize=(10.5, 3.6))
    g = gaps[gaps.participant_country != "all"]
    _bars(axes[0], g["participant_country"].tolist(), g["gap_pp"].tolist(),
          title="A: norm-personal gap by participant country",
          ylabel="p_personal - p_norm\n(percentage points)", xlabel="Participant country")
    a = agree[agree.group_by == "relation"].pivot(index="level", columns="question_type", values="agreement")
    a = a.reindex([x for x in ("same", "close", "far") if x in a.index])
    a.columns = [str(c).replace("_", " ") for c in a.columns]
    a.plot.bar(ax=axes[1], rot=0, legend=False)
    axes[1].set_ylim(0.4, 1)
    axes[1].set_xlabel("Scenario country relative to the participant's")
    axes[1].set_ylabel("Agreement\n(share choosing the majority option)")
    axes[1].set_title("B: agreement by country relation")
    figs.legend_outside(axes[1], title="Question")
    fig.suptitle("Figure 6: human study")
    fig.tight_layout()
    figs.note(fig, "p_personal, p_norm: allow-preference rate in the personal-choice and the norm-judgment "
              "questions.")
    _save(fig, out, synthetic)


def figure7(summary: pd.DataFrame, out: str, synthetic: bool, setting: str = "no_persona") -> None:
    """Panels A-C from the ``setting`` rows (persona_setting) of the alignment summary, panel D
    (uncertainty) from the persona-conditioned rows."""
    avg = summary[summary.frame == "avg"]
    if setting not in set(avg["persona_setting"]):
        raise ValueError(f"alignment summary has no persona_setting {setting!r} rows "
                         f"(pact.alignment.figure7_setting); found {sorted(set(avg['persona_setting']))}")
    s = avg[avg.persona_setting == setting].set_index("model")
    unc = avg[avg.persona_setting == "persona"].set_index("model")["uncertainty_corr"].reindex(s.index)
    fig, axes = plt.subplots(1, 4, figsize=(14, 4.2))
    _bars(axes[0], s.index.tolist(), s["majority_alignment"].tolist(), title="A: majority alignment",
          ylabel="Share of items where the model\nchooses the human majority option")
    axes[0].set_ylim(0, 1)
    x = np.arange(len(s))
    axes[1].bar(x - 0.2, s["rate_mae_item"], 0.4, label="item-level MAE")
    axes[1].bar(x + 0.2, s["rate_gap_aggregate"], 0.4, label="aggregate-rate gap")
    axes[1].set_xticks(x, figs.displays(s.index), rotation=30, ha="right")
    axes[1].set_xlabel("Model")
    axes[1].set_ylabel("Absolute error of the culture-\nfollowing rate (0-1)")
    axes[1].set_title("B: rate alignment (lower is better)")
    _bars(axes[2], s.index.tolist(), s["signed_culture_gap"].tolist(),
          title="C: signed culture gap\n(+ = model over-culturalizes)",
          ylabel="Culture-following rate,\nmodel minus human")
    _bars(axes[3], s.index.tolist(), unc.fillna(0).tolist(), title="D: uncertainty correlation (persona)",
          ylabel="Pearson r, model vs human\nagreement per item")
    for k, v in enumerate(unc):
        if pd.isna(v):
            axes[3].text(k, 0, "n/a (constant\nagreement)", ha="center", va="bottom", fontsize=6.5)
    fig.suptitle(f"Figure 7: human-model alignment (A-C: {setting.replace('_', ' ')})")
    fig.tight_layout()
    # panel B's legend under the figure, clear of every axis label
    handles, labels = axes[1].get_legend_handles_labels()
    fig.legend(handles, [f"B: {x}" for x in labels], loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=2,
               frameon=False)
    _save(fig, out, synthetic)


def _paired_bars(ax, labels, a, b, la, lb, title, ylabel):
    x = np.arange(len(labels))
    ax.bar(x - 0.2, a, 0.4, label=la, color="tab:gray")
    ax.bar(x + 0.2, b, 0.4, label=lb, color="tab:orange")
    ax.set_xticks(x, figs.displays(labels), rotation=30, ha="right")
    ax.set_xlabel("Model")
    ax.set_title(title)
    ax.set_ylabel(ylabel)
    ax.axhline(0, color="black", lw=0.5)


def figure15(effects: pd.DataFrame, out: str, synthetic: bool) -> None:
    """Appendix F.4 / figure 15: rate-alignment MAE and norm-personal gap, no persona vs persona,
    per model (frame average, main prompt format)."""
    fig, axes = plt.subplots(1, 3, figsize=(12.5, 3.8))
    e = effects[effects.frame == "avg"]
    for ax, metric, title, ylabel in (
            (axes[0], "rate_gap_aggregate", "A: rate-alignment MAE\n|mean model - mean human| (lower is better)",
             "MAE of the culture-following rate (0-1)"),
            (axes[1], "rate_mae_item", "B: item-level MAE\nmean |model - human| per item (lower is better)",
             "MAE of the culture-following rate (0-1)"),
            (axes[2], "norm_personal_gap", "C: model norm-personal gap\np_personal - p_norm",
             "Difference in allow-preference rate (0-1)")):
        g = e[e.metric == metric].sort_values("model")
        _paired_bars(ax, g["model"].tolist(), g["no_persona"].fillna(0), g["persona"].fillna(0),
                     "no persona", "persona", title, ylabel)
        for k, (a, b) in enumerate(zip(g["no_persona"], g["persona"])):
            if pd.notna(a) and pd.notna(b):
                ax.text(k, max(a, b, 0), f"{b - a:+.3f}", ha="center", va="bottom", fontsize=6.5)
    figs.legend_outside(axes[2], title="Setting")
    fig.suptitle("Figure 15: persona vs no persona (numbers above the bars: persona minus no persona)")
    fig.tight_layout()
    _save(fig, out, synthetic)


def figure16(country: pd.DataFrame, out: str, synthetic: bool) -> None:
    """Appendix F.4 / figure 16: persona - no-persona rate-alignment MAE per persona country,
    averaged across models (bars) with each model's value (points); below 0 = persona helps."""
    fig, ax = plt.subplots(figsize=(7.5, 3.8))
    c = country[country.frame == "avg"]
    allm = c[c.model == "all"].sort_values("delta")
    countries = allm["persona_country"].tolist()
    x = np.arange(len(countries))
    ax.bar(x, allm["delta"], color=["mediumseagreen" if v < 0 else "salmon" for v in allm["delta"]],
           label="mean over models")
    models = sorted(m for m in c["model"].unique() if m != "all")
    for j, m in enumerate(models):
        g = c[c.model == m].set_index("persona_country").reindex(countries)
        ax.scatter(x + (j - (len(models) - 1) / 2) * 0.08, g["delta"], s=14, zorder=3, label=figs.display(m))
    ax.set_xticks(x, countries, rotation=30, ha="right")
    ax.set_xlabel("Persona country")
    ax.axhline(0, color="black", lw=0.5)
    ax.set_ylabel("MAE(persona) - MAE(no persona)\n(culture-following rate, 0-1; below 0 = persona helps)")
    figs.legend_outside(ax)
    if not countries:
        ax.text(0.5, 0.5, "no persona country with human responses", transform=ax.transAxes, ha="center")
    ax.set_title("Figure 16: persona vs no-persona rate-alignment MAE by persona country")
    _save(fig, out, synthetic)


def _heat(ax, t: pd.DataFrame, rows, cols, title):
    m = t.pivot(index="actor_region", columns="receiver_region", values="allow_rate").reindex(index=rows,
                                                                                              columns=cols)
    im = figs.heatmap(ax, m.to_numpy(dtype=float), rows, cols, vmin=0, vmax=1, missing="")
    ax.set_title(title, fontsize=8)
    if m.isna().all().all():
        ax.text(0.5, 0.5, "no decisions", transform=ax.transAxes, ha="center", va="center", fontsize=7)
    return im


def region_heatmap(pairs: pd.DataFrame, out: str, regions, focus=("N. Am./W. Eur.", "MENA")) -> None:
    """Appendix B.2: allow-preference rate (valid decisions) by actor region (rows) x receiver
    region (columns), one panel per model (all sources pooled); below, the Western/MENA 2x2
    focus panel of each model.  Grey = no decisions in the cell."""
    p = pairs[pairs.source == "all"]
    models = sorted(m for m in p["model"].unique() if m != "all")
    facets = models + (["all"] if len(models) > 1 else [])
    present = set(p["actor_region"]) | set(p["receiver_region"])
    regs = [r for r in regions if r in present] + sorted(present - set(regions))
    n = max(len(facets), 1)
    fig, axes = plt.subplots(2, n, figsize=(4.4 * n + 1, 7.8), squeeze=False,
                             gridspec_kw={"height_ratios": [2.2, 1], "hspace": 0.45})
    im = None
    for k, m in enumerate(facets):
        t = p[p.model == m]
        name = figs.display(m) if m != "all" else "all models (pooled)"
        im = _heat(axes[0, k], t, regs, regs, name)
        _heat(axes[1, k], t, list(focus), list(focus), f"{name}: Western/MENA")
        for ax in axes[:, k]:
            ax.set_xlabel("Receiver region")
            ax.set_ylabel("Actor region")
    if im is not None:
        figs.colorbar(fig, im, axes[:, :].ravel().tolist(), "Allow-preference rate (share of valid decisions)",
                      shrink=0.8)
    fig.suptitle("Appendix B.2: allow-preference rate by actor region x receiver region (grey: no decisions)")
    _save(fig, out)
