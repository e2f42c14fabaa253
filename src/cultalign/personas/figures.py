"""Figures 3, 5, 6, 10, 11 and 12 of the paper, from the distances and ablation tables."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402


def _heat(ax, piv: pd.DataFrame, title: str):
    if piv.empty:
        ax.text(0.5, 0.5, "no data", ha="center")
        ax.set_title(title)
        return
    im = ax.imshow(piv.to_numpy(dtype=float), cmap="viridis_r", aspect="auto")
    ax.set_xticks(range(piv.shape[1]), piv.columns, rotation=45, ha="right", fontsize=7)
    ax.set_yticks(range(piv.shape[0]), piv.index, fontsize=7)
    for (i, j), v in np.ndenumerate(piv.to_numpy(dtype=float)):
        ax.text(j, i, "" if np.isnan(v) else f"{v:.2f}", ha="center", va="center", fontsize=6, color="w")
    ax.set_title(title, fontsize=8)
    plt.colorbar(im, ax=ax, fraction=0.04)


def _grid(n):
    fig, axes = plt.subplots(1, max(n, 1), figsize=(4.2 * max(n, 1), 3.4), squeeze=False)
    return fig, axes[0]


def make_figures(distances_path: str, priming_path: str, out: dict):
    d = pd.read_csv(distances_path, sep="\t")
    pr = pd.read_csv(priming_path, sep="\t")
    primed = d[d["priming"] == "primed"]
    models = sorted(d["model"].unique())
    # Figure 3: MCS W and KS (mean over OCEAN) per instrument x country, first model
    m0 = primed[(primed["setting"] == "mcs") & (primed["model"] == models[0])] if models else primed
    fig, axes = _grid(2)
    for ax, metric in zip(axes, ("W", "KS")):
        _heat(ax, m0.groupby(["instrument", "country"])[metric].mean().unstack(),
              f"Fig. 3 MCS {metric} ({models[0] if models else ''})")
    fig.tight_layout()
    fig.savefig(out["figure3"], dpi=120)
    plt.close(fig)
    # Figure 5: W per trait x model (mean over countries), MCS, CulturalPersonas
    fig, axes = _grid(1)
    sub = primed[(primed["setting"] == "mcs") & (primed["instrument"] == "cp")]
    _heat(axes[0], sub.groupby(["model", "trait"])["W"].mean().unstack(), "Fig. 5 MCS W by trait and model (cp)")
    fig.tight_layout()
    fig.savefig(out["figure5"], dpi=120)
    plt.close(fig)
    # Figures 10 / 11: per-model W (mean over OCEAN) per instrument x country, MCS and OEG
    for key, setting in (("figure10", "mcs"), ("figure11", "oeg")):
        fig, axes = _grid(len(models))
        for ax, m in zip(axes, models):
            s = primed[(primed["setting"] == setting) & (primed["model"] == m)]
            _heat(ax, s.groupby(["instrument", "country"])["W"].mean().unstack(), f"{setting.upper()} W: {m}")
        fig.tight_layout()
        fig.savefig(out[key], dpi=120)
        plt.close(fig)
    # Figure 6: priming improvement for the first country, bars per model x instrument (MCS)
    fig, axes = _grid(2)
    for ax, setting in zip(axes, ("mcs", "oeg")):
        s = pr[pr["setting"] == setting] if len(pr) else pr
        if len(s):
            c0 = sorted(s["country"].unique())[0]
            s = s[s["country"] == c0]
            labels = [f"{m}\n{i}" for m, i in zip(s["model"], s["instrument"])]
            ax.bar(range(len(s)), s["improvement_pct"])
            for k, (v, st) in enumerate(zip(s["improvement_pct"], s["stars"].fillna(""))):
                ax.text(k, v, st, ha="center", va="bottom")
            ax.set_xticks(range(len(s)), labels, rotation=45, ha="right", fontsize=6)
            ax.set_title(f"Fig. 6 priming gain in W (%), {setting.upper()}, {c0}", fontsize=8)
        ax.axhline(0, color="k", lw=0.5)
    fig.tight_layout()
    fig.savefig(out["figure6"], dpi=120)
    plt.close(fig)
    # Figure 12: priming gain per country x model, MCS and OEG (mean over instruments)
    fig, axes = _grid(2)
    for ax, setting in zip(axes, ("mcs", "oeg")):
        s = pr[pr["setting"] == setting] if len(pr) else pr
        piv = s.groupby(["model", "country"])["improvement_pct"].mean().unstack() if len(s) else pd.DataFrame()
        _heat(ax, piv, f"Fig. 12 priming gain (%), {setting.upper()}")
    fig.tight_layout()
    fig.savefig(out["figure12"], dpi=120)
    plt.close(fig)
