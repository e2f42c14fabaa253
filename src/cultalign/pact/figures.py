"""Figures 3-7 of the paper, drawn from the result tables (matplotlib, Agg)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

SYN = "synthetic human data (demo)"


def _bars(ax, labels, values, err=None, color=None, title="", ylabel=""):
    x = np.arange(len(labels))
    ax.bar(x, values, yerr=err, color=color, capsize=3)
    ax.set_xticks(x, labels, rotation=30, ha="right", fontsize=8)
    ax.set_title(title, fontsize=9)
    ax.set_ylabel(ylabel, fontsize=8)
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
        ax.bar(np.arange(len(models)) + j * w, g.allow_rate, w, yerr=err, capsize=2, label=c)
    ax.set_xticks(np.arange(len(models)) + w * (len(confs) - 1) / 2, models, fontsize=8)
    ax.set_ylabel("Allow-preference rate")
    ax.set_ylim(0, 1)
    ax.legend(fontsize=8)
    ax.set_title("Figure 3: allow-preference rate by model and configuration", fontsize=9)
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)


def figure4(by_model_kind: pd.DataFrame, out: str) -> None:
    fig, ax = plt.subplots(figsize=(6, 3.5))
    lab = by_model_kind["model"] + " (" + by_model_kind["model_kind"] + ")"
    _bars(ax, lab.tolist(), by_model_kind["allow_rate"].tolist(),
          color=["tab:gray" if k == "base" else "tab:blue" for k in by_model_kind["model_kind"]],
          title="Figure 4: base vs instruct allow-preference rate", ylabel="Allow-preference rate")
    if (by_model_kind["model_kind"] == "base").sum() == 0:
        ax.text(0.5, 0.9, "no base model configured in this run", transform=ax.transAxes, ha="center", fontsize=8)
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)


def figure5(demo: pd.DataFrame, regions: pd.DataFrame, out: str) -> None:
    fig, axes = plt.subplots(1, 3, figsize=(11, 3.5))
    d = demo[demo.model != "all"]
    for ax, f, title in ((axes[0], "actor_age", "A: age (younger - older, actor)"),
                         (axes[1], "actor_gender", "B: gender (female - male, actor)")):
        g = d[d.factor == f]
        _bars(ax, g["model"].tolist(), g["delta_pp"].fillna(0).tolist(), title=title, ylabel="pp")
    r = regions.sort_values("delta_pp")
    _bars(axes[2], r["region"].tolist(), r["delta_pp"].tolist(),
          color=["salmon" if v < 0 else "mediumseagreen" for v in r["delta_pp"]],
          title="C: receiver region (rate - overall)", ylabel="pp")
    fig.suptitle("Figure 5: demographic and regional effects", fontsize=9)
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)


def figure6(gaps: pd.DataFrame, agree: pd.DataFrame, out: str, synthetic: bool) -> None:
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.5))
    g = gaps[gaps.participant_country != "all"]
    _bars(axes[0], g["participant_country"].tolist(), g["gap_pp"].tolist(),
          title="A: norm-personal gap by participant country", ylabel="p_pers - p_norm (pp)")
    a = agree[agree.group_by == "relation"].pivot(index="level", columns="question_type", values="agreement")
    a = a.reindex([x for x in ("same", "close", "far") if x in a.index])
    a.plot.bar(ax=axes[1], rot=0)
    axes[1].set_ylim(0.4, 1)
    axes[1].set_title("B: agreement by country relation", fontsize=9)
    fig.suptitle("Figure 6: human study" + (f" ({SYN})" if synthetic else ""), fontsize=9)
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)


def figure7(summary: pd.DataFrame, out: str, synthetic: bool) -> None:
    s = summary[summary.frame == "avg"].set_index("model")
    fig, axes = plt.subplots(1, 4, figsize=(13, 3.5))
    _bars(axes[0], s.index.tolist(), s["majority_alignment"].tolist(), title="A: majority alignment")
    x = np.arange(len(s))
    axes[1].bar(x - 0.2, s["rate_mae_item"], 0.4, label="item-level MAE")
    axes[1].bar(x + 0.2, s["rate_gap_aggregate"], 0.4, label="aggregate-rate gap")
    axes[1].set_xticks(x, s.index, fontsize=8)
    axes[1].legend(fontsize=7)
    axes[1].set_title("B: rate alignment", fontsize=9)
    _bars(axes[2], s.index.tolist(), s["signed_culture_gap"].tolist(),
          title="C: signed culture gap (+ = over-selects culture)")
    _bars(axes[3], s.index.tolist(), s["uncertainty_corr"].fillna(0).tolist(), title="D: uncertainty correlation")
    for k, v in enumerate(s["uncertainty_corr"]):
        if pd.isna(v):
            axes[3].text(k, 0, "n/a (constant\nagreement)", ha="center", va="bottom", fontsize=7)
    fig.suptitle("Figure 7: human-model alignment" + (f" ({SYN})" if synthetic else ""), fontsize=9)
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)
