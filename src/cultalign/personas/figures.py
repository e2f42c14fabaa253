"""Figures 3, 5, 6, 10, 11 and 12 of the paper, from the distances and ablation tables, in the
project's one figure style (``cultalign.core.figures``)."""

from __future__ import annotations

import pandas as pd

from ..core import figures as figs
from ..core.figures import plt

W_LABEL = "W: Wasserstein distance to the human\ntrait distribution (1-5 scale)"
KS_LABEL = "KS: two-sample Kolmogorov-Smirnov\nstatistic vs humans (0-1)"
GAIN_LABEL = "Relative improvement in W\nfrom priming (%)"
INSTRUMENTS = {"cp": "CulturalPersonas"}
FIGURE6_COUNTRY = "brazil"  # the paper's Figure 6 country (else the first country of the run)
TRAITS = {"O": "Openness", "C": "Conscientiousness", "E": "Extraversion", "A": "Agreeableness",
          "N": "Neuroticism"}


def _names(labels, kind: str) -> list[str]:
    """Display names of the labels of a heatmap axis: ``kind`` instrument (CulturalPersonas,
    else the id in capitals: BFI, IPIP-120), trait (its full name), country (capitalised) or
    model (display name)."""
    out = []
    for x in map(str, labels):
        if kind == "instrument":
            out.append(INSTRUMENTS.get(x, x.upper()))
        elif kind == "trait":
            out.append(TRAITS.get(x, x))
        elif kind == "country":
            out.append(x[:1].upper() + x[1:])
        else:
            out.append(figs.display(x))
    return out


def _heat(fig, ax, piv: pd.DataFrame, title: str, label: str, better: str, xlabel: str, ylabel: str,
          cmap: str = "viridis_r", fmt: str = "{:.2f}"):
    """(Rows and columns are named by the axis labels: "Instrument", "OCEAN trait", "Country",
    "Model".)"""
    """One heatmap panel with its own labelled colour bar (``better``: which direction is better;
    the colour map puts the better end in the light colours)."""
    ax.set_title(title)
    if piv.empty:
        ax.text(0.5, 0.5, "no data", ha="center", transform=ax.transAxes)
        ax.set_xticks([])
        ax.set_yticks([])
        return
    kinds = {"Instrument": "instrument", "OCEAN trait": "trait", "Country": "country", "Model": "model"}
    im = figs.heatmap(ax, piv.to_numpy(dtype=float), _names(piv.index, kinds[ylabel]),
                      _names(piv.columns, kinds[xlabel]), cmap=cmap, fmt=fmt, names={})
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    figs.colorbar(fig, im, ax, label, better, fraction=0.05, pad=0.03)


def _grid(n, width=4.6, height=3.6):
    fig, axes = plt.subplots(1, max(n, 1), figsize=(width * max(n, 1), height), squeeze=False)
    return fig, axes[0]


def make_figures(distances_path: str, priming_path: str, out: dict):
    d = pd.read_csv(distances_path, sep="\t")
    pr = pd.read_csv(priming_path, sep="\t")
    primed = d[d["priming"] == "primed"]
    models = sorted(d["model"].unique())
    m0 = figs.display(models[0]) if models else ""
    # Figure 3: MCS W and KS (mean over OCEAN) per instrument x country, first model
    sub = primed[(primed["setting"] == "mcs") & (primed["model"] == models[0])] if models else primed
    fig, axes = _grid(2)
    for ax, metric, label in zip(axes, ("W", "KS"), (W_LABEL, KS_LABEL)):
        _heat(fig, ax, sub.groupby(["instrument", "country"])[metric].mean().unstack(),
              f"{metric}, MCS, mean over OCEAN traits", label, "lower", "Country", "Instrument")
    fig.suptitle(f"Figure 3: MCS alignment with human personality distributions ({m0})")
    fig.tight_layout()
    figs.save(fig, out["figure3"])
    # Figure 5: W per trait x model (mean over countries), MCS, CulturalPersonas
    fig, axes = _grid(1, width=6.0)
    sub = primed[(primed["setting"] == "mcs") & (primed["instrument"] == "cp")]
    _heat(fig, axes[0], sub.groupby(["model", "trait"])["W"].mean().unstack(),
          "MCS, CulturalPersonas, mean over countries", W_LABEL, "lower", "OCEAN trait", "Model")
    fig.suptitle("Figure 5: W by trait and model")
    fig.tight_layout()
    figs.save(fig, out["figure5"])
    # Figures 10 / 11: per-model W (mean over OCEAN) per instrument x country, MCS and OEG
    for key, setting, n in (("figure10", "mcs", 10), ("figure11", "oeg", 11)):
        fig, axes = _grid(len(models))
        for ax, m in zip(axes, models):
            s = primed[(primed["setting"] == setting) & (primed["model"] == m)]
            _heat(fig, ax, s.groupby(["instrument", "country"])["W"].mean().unstack(), figs.display(m),
                  W_LABEL, "lower", "Country", "Instrument")
        fig.suptitle(f"Figure {n}: {setting.upper()} W per instrument and country, mean over OCEAN traits")
        fig.tight_layout()
        figs.save(fig, out[key])
    # Figure 6: priming improvement for Brazil (else the first country), bars per model x instrument
    fig, axes = _grid(2)
    country = ""
    for ax, setting in zip(axes, ("mcs", "oeg")):
        s = pr[pr["setting"] == setting] if len(pr) else pr
        ax.set_title(setting.upper())
        if len(s):
            countries = sorted(s["country"].unique())
            country = next((c for c in countries if str(c).lower() == FIGURE6_COUNTRY), countries[0])
            s = s[s["country"] == country]
            labels = [f"{figs.display(m)}\n{name}"
                      for m, name in zip(s["model"], _names(s["instrument"], "instrument"))]
            ax.bar(range(len(s)), s["improvement_pct"], color="tab:blue")
            for k, (v, st) in enumerate(zip(s["improvement_pct"], s["stars"].fillna(""))):
                ax.text(k, v, st, ha="center", va="bottom" if v >= 0 else "top")
            ax.set_xticks(range(len(s)), labels, rotation=40, ha="right")
        else:
            ax.text(0.5, 0.5, "no data", ha="center", transform=ax.transAxes)
        ax.set_xlabel("Model and instrument")
        ax.set_ylabel(GAIN_LABEL + "\n(higher is better)")
        ax.axhline(0, color="k", lw=0.5)
    where = f" for {_names([country], 'country')[0]}" if country else ""
    fig.suptitle(f"Figure 6: effect of cultural priming{where}")
    fig.tight_layout()
    figs.note(fig, "Bars: relative improvement in W, (W unprimed - W primed) / W unprimed x 100. "
              "* p < 0.05, ** p < 0.01 (Wilcoxon signed-rank test over the 5 traits; with 5 pairs the "
              "smallest two-sided p is 0.0625).")
    figs.save(fig, out["figure6"])
    # Figure 12: priming gain per country x model, MCS and OEG (mean over instruments)
    fig, axes = _grid(2)
    for ax, setting in zip(axes, ("mcs", "oeg")):
        s = pr[pr["setting"] == setting] if len(pr) else pr
        piv = s.groupby(["model", "country"])["improvement_pct"].mean().unstack() if len(s) else pd.DataFrame()
        _heat(fig, ax, piv, f"{setting.upper()}, mean over instruments", GAIN_LABEL, "higher", "Country", "Model",
              cmap="viridis", fmt="{:.1f}")
    fig.suptitle("Figure 12: priming gain per country and model")
    fig.tight_layout()
    figs.save(fig, out["figure12"])
