"""Figures 3 and 5-9 of the paper from this workflow's tables, in the project's one figure
style (``cultalign.core.figures``: 300 dpi, labelled axes and colour bars, readable cell
numbers, display names, the synthetic mark)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..core import figures as figs
from ..core.figures import plt

METRICS = {"EAA": "EAA: explicit agreement accuracy", "SAA": "SAA: stated agreement accuracy",
           "AVG": "AVG: mean of SAA and EAA"}
FEATURE_NAMES = {"numbers": "numbers", "question_marks": "question marks", "modal_verbs": "modal verbs",
                 "hedges": "hedges", "you_pronouns": "2nd-person pronouns", "person_mentions": "person mentions"}


def _comparison(label) -> str:
    """A comparison id (``<candidate>_vs_<reference>``) with display names: "<name> vs <name>"."""
    return figs.display(str(label).replace("_vs_", " vs "))


def _heatmap(fig, ax, mat: pd.DataFrame, label: str, better: str | None = None, fmt="{:.3f}"):
    im = figs.heatmap(ax, mat.to_numpy(dtype=float), list(mat.index), list(mat.columns), fmt=fmt)
    figs.colorbar(fig, im, ax, label, better)
    return im


def scale_note(scale: str) -> str:
    """Title note of a figure made at config ``scale`` (demo inputs are marked)."""
    return "(demo inputs)" if scale == "demo" else ""


def figure5(agreement: pd.DataFrame, out: str, title_note: str = "") -> None:
    fig, ax = plt.subplots(figsize=(7, 3.6))
    x = np.arange(len(agreement))
    for k, m in enumerate(METRICS):
        ax.bar(x + (k - 1) * 0.25, agreement[m].fillna(0), width=0.25, label=METRICS[m])
    ax.set_xticks(x, [_comparison(c) for c in agreement["comparison"]], rotation=20, ha="right")
    ax.set_ylim(0, 1)
    ax.set_xlabel("Candidate vs reference")
    ax.set_ylabel("Agreement with the reference\nsolutions (0-1, higher is better)")
    ax.set_title(f"Figure 5: agreement with the reference solutions {title_note}".strip())
    figs.legend_outside(ax, title="Metric")
    figs.save(fig, out)


def figure6(per_answer: pd.DataFrame, out: str) -> None:
    fig, ax = plt.subplots(figsize=(6, 3.5))
    models = sorted(per_answer["model"].dropna().unique())
    if models:
        labels = figs.displays(models)
        if "truncated" in per_answer:  # answers cut at the token cap, named under their model
            cut = per_answer.groupby("model")["truncated"].sum()
            labels = [f"{lab}\n({int(cut.get(m, 0))} cut)" if cut.get(m, 0) else lab for lab, m in zip(labels, models)]
        ax.boxplot([per_answer.loc[per_answer["model"] == m, "n_words"] for m in models], tick_labels=labels)
    else:  # no valid answer (e.g. no dilemma to answer)
        figs.no_data(ax, "no valid answer")
    ax.set_xlabel("Model")
    ax.set_ylabel("Words per answer")
    ax.set_title("Figure 6: number of words in the models' answers")
    figs.save(fig, out)


def figure7(per_model: pd.DataFrame, features: list[str], out: str) -> None:
    fig, ax = plt.subplots(figsize=(7.5, 1.8 + 0.5 * len(per_model)))
    mat = per_model.set_index("model")[features]
    mat.columns = [FEATURE_NAMES.get(c, c) for c in mat.columns]
    if mat.empty:  # no valid answer (e.g. no dilemma to answer)
        figs.no_data(ax, "no valid answer")
    else:
        _heatmap(fig, ax, mat, "Share of the answer's words\n(mean over dilemmas)")
    ax.set_xlabel("Entity type")
    ax.set_ylabel("Model")
    ax.set_title("Figure 7: entities in the open-ended answers (per word)")
    figs.save(fig, out)


def figure8(scores: pd.DataFrame, topics: pd.DataFrame, out: str) -> None:
    names = dict(zip(topics["topic"].astype(str), topics["name"]))
    mat = scores.pivot(index="comparison", columns="topic", values="AVG")
    mat.index = [_comparison(c) for c in mat.index]
    mat.columns = [names.get(str(c).replace("topic_", ""), c) for c in mat.columns]
    fig, ax = plt.subplots(figsize=(3 + 1.2 * mat.shape[1], 1.8 + 0.5 * mat.shape[0]))
    _heatmap(fig, ax, mat, "AVG weighted by topic share\n(0-1)", "higher")
    ax.set_xlabel("Topic (model-given name)")
    ax.set_ylabel("Candidate vs reference")
    ax.set_title("Figure 8: weighted average of AVG per model and topic")
    figs.save(fig, out)


def figure9(grid: pd.DataFrame, out: str) -> None:
    """Appendix D Figure 9: EAA over intersection ratio (x) and same-stance ratio (y), one panel
    per number of candidate solutions (r_cand)."""
    lengths = sorted(grid["r_cand"].unique())
    fig, axes = plt.subplots(1, len(lengths), figsize=(2.4 * len(lengths) + 1, 3.0), squeeze=False,
                             sharey=True, constrained_layout=True)
    for ax, r in zip(axes[0], lengths):
        mat = grid[grid["r_cand"] == r].pivot(index="same_stance_ratio", columns="intersection_ratio", values="EAA")
        xs, ys = mat.columns.to_numpy(float), mat.index.to_numpy(float)
        hx = (xs[1] - xs[0]) / 2 if len(xs) > 1 else 0.5
        hy = (ys[1] - ys[0]) / 2 if len(ys) > 1 else 0.5
        # cells centred on the grid points
        im = ax.imshow(mat.to_numpy(dtype=float), origin="lower", aspect="auto", cmap="viridis", vmin=0, vmax=1,
                       extent=(xs.min() - hx, xs.max() + hx, ys.min() - hy, ys.max() + hy))
        ax.set_xticks([0, 0.5, 1])
        ax.set_title(f"r_cand = {r}")
        ax.set_xlabel("Intersection ratio\n(share of candidates matched)")
    axes[0][0].set_ylabel("Same-stance ratio\n(among matched pairs)")
    figs.colorbar(fig, im, axes[0].tolist(), "EAA (0-1)")
    fig.suptitle("Figure 9: EAA over the intersection ratio, the same-stance ratio and r_cand "
                 "(number of candidate solutions)")
    figs.save(fig, out)


def figure3(positions: pd.DataFrame, topics: pd.DataFrame, out: str) -> None:
    """Figure 3: the dilemmas placed by t-SNE of their topic proportions, coloured by dominant
    topic (left), and the number of dilemmas per dominant topic (right)."""
    names = dict(zip(topics["topic"].astype(str), topics["name"]))
    order = [str(t) for t in topics["topic"]]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4), gridspec_kw={"width_ratios": [3, 2]})
    cmap = plt.get_cmap("tab20")
    for k, t in enumerate(order):
        sub = positions[positions["topic"].astype(str) == t]
        left.scatter(sub["x"], sub["y"], s=14, color=cmap(k % 20), label=names.get(t, t))
    left.set_xticks([])
    left.set_yticks([])
    left.set_xlabel("t-SNE dimension 1 (no unit)")
    left.set_ylabel("t-SNE dimension 2 (no unit)")
    left.set_title("Dilemmas by dominant topic (t-SNE of topic proportions)")
    counts = positions["topic"].astype(str).value_counts().reindex(order, fill_value=0)
    right.barh([names.get(t, t) for t in order], counts.to_numpy(), color=[cmap(k % 20) for k in range(len(order))])
    right.invert_yaxis()
    right.set_xlabel("Dilemmas (count)")
    right.set_ylabel("Dominant topic (model-given name)")
    right.set_title("Dilemmas per dominant topic")
    fig.suptitle("Figure 3: topics of the dilemmas")
    fig.tight_layout()
    figs.save(fig, out)
