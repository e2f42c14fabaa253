"""Figures 5-8 of the paper from this workflow's tables (matplotlib, Agg)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402


def _heatmap(ax, mat: pd.DataFrame, fmt="{:.3f}"):
    im = ax.imshow(mat.to_numpy(dtype=float), aspect="auto", cmap="viridis")
    ax.set_xticks(range(mat.shape[1]), mat.columns, rotation=45, ha="right")
    ax.set_yticks(range(mat.shape[0]), mat.index)
    for i in range(mat.shape[0]):
        for j in range(mat.shape[1]):
            v = mat.iat[i, j]
            ax.text(j, i, "n/a" if pd.isna(v) else fmt.format(v), ha="center", va="center", color="w", fontsize=8)
    return im


def scale_note(scale: str) -> str:
    """Title note of a figure made at config ``scale`` (demo inputs are marked)."""
    return "(demo inputs)" if scale == "demo" else ""


def figure5(agreement: pd.DataFrame, out: str, title_note: str = "") -> None:
    fig, ax = plt.subplots(figsize=(6, 3.5))
    metrics = ["EAA", "SAA", "AVG"]
    x = np.arange(len(agreement))
    for k, m in enumerate(metrics):
        ax.bar(x + (k - 1) * 0.25, agreement[m].fillna(0), width=0.25, label=m)
    ax.set_xticks(x, agreement["comparison"], rotation=20, ha="right")
    ax.set_ylim(0, 1)
    ax.set_ylabel("agreement")
    ax.set_title(f"Agreement with the reference solutions {title_note}".strip())
    ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)


def figure6(per_answer: pd.DataFrame, out: str) -> None:
    fig, ax = plt.subplots(figsize=(6, 3.5))
    models = sorted(per_answer["model"].unique())
    ax.boxplot([per_answer.loc[per_answer["model"] == m, "n_words"] for m in models], tick_labels=models)
    ax.set_ylabel("words per answer")
    ax.set_title("Number of words in the models' answers")
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)


def figure7(per_model: pd.DataFrame, features: list[str], out: str) -> None:
    fig, ax = plt.subplots(figsize=(7, 1.5 + 0.5 * len(per_model)))
    mat = per_model.set_index("model")[features]
    im = _heatmap(ax, mat)
    fig.colorbar(im, ax=ax, label="share of words")
    ax.set_title("Entities in the open-ended answers (per word)")
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)


def figure8(scores: pd.DataFrame, topics: pd.DataFrame, out: str) -> None:
    names = dict(zip(topics["topic"].astype(str), topics["name"]))
    mat = scores.pivot(index="comparison", columns="topic", values="AVG")
    mat.columns = [names.get(str(c).replace("topic_", ""), c) for c in mat.columns]
    fig, ax = plt.subplots(figsize=(2 + 1.2 * mat.shape[1], 1.5 + 0.5 * mat.shape[0]))
    im = _heatmap(ax, mat)
    fig.colorbar(im, ax=ax, label="weighted AVG")
    ax.set_title("Weighted average of AVG per model and topic")
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)


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
        ax.set_title(f"r_cand = {r}", fontsize=9)
        ax.set_xlabel("intersection ratio", fontsize=8)
    axes[0][0].set_ylabel("same stance ratio")
    fig.colorbar(im, ax=axes[0].tolist(), label="EAA")
    fig.savefig(out, dpi=120)
    plt.close(fig)


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
    left.set_title("Dilemmas by topic (t-SNE of topic proportions)", fontsize=9)
    counts = positions["topic"].astype(str).value_counts().reindex(order, fill_value=0)
    right.barh([names.get(t, t) for t in order], counts.to_numpy(), color=[cmap(k % 20) for k in range(len(order))])
    right.invert_yaxis()
    right.set_xlabel("dilemmas (dominant topic)")
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)
