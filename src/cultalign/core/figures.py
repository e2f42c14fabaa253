"""One figure style for the three studies: matplotlib (Agg) at 300 dpi, numbers on heatmap
cells in a colour readable on the cell, legends outside the data, models by their display
names, and a visible mark on any figure drawn from synthetic (demo) inputs.

A figure function draws with ``new_figure`` / plain matplotlib and ends with ``save(fig, out)``.
Inside a rule script the synthetic mark and the display names come from the running job
(``cultalign.core.job.current_job``: its synthetic inputs, its param ``model_names``);
outside one (unit tests) they can be passed explicitly.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable, Mapping, Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

DPI = 300
SYNTHETIC_MARK = "SYNTHETIC DEMO INPUTS: not a paper result"
STYLE = {
    "font.size": 8,
    "axes.titlesize": 9,
    "axes.labelsize": 8,
    "xtick.labelsize": 7,
    "ytick.labelsize": 7,
    "legend.fontsize": 7,
    "legend.title_fontsize": 7,
    "figure.titlesize": 10,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "savefig.dpi": DPI,
}
plt.rcParams.update(STYLE)


def _job():
    from .job import current_job

    return current_job()


def synthetic_inputs() -> list[str]:
    """Config keys of the synthetic inputs of the running job ([] outside a rule script)."""
    job = _job()
    return list(job.synthetic_inputs) if job is not None else []


def model_names() -> dict[str, str]:
    """{model name: display name} of the running job (param ``model_names``; {} when absent)."""
    job = _job()
    if job is None:
        return {}
    return dict(job.params.get("model_names") or {})


def display(label, names: Mapping[str, str] | None = None) -> str:
    """``label`` with every model name in it replaced by its display name (longest names first,
    so one name that contains another is replaced whole)."""
    names = model_names() if names is None else names
    text = str(label)
    for name in sorted(names, key=len, reverse=True):
        if name in text:
            text = text.replace(name, f"\0{len(name)}\0")
    for name in sorted(names, key=len, reverse=True):
        text = text.replace(f"\0{len(name)}\0", names[name])
    return text


def displays(labels: Iterable, names: Mapping[str, str] | None = None) -> list[str]:
    return [display(x, names) for x in labels]


def text_color(rgba: Sequence[float]) -> str:
    """Black or white, whichever reads better on a cell of colour ``rgba`` (WCAG relative
    luminance; white below 0.179, the point of equal contrast)."""
    def lin(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (lin(float(c)) for c in rgba[:3])
    return "white" if 0.2126 * r + 0.7152 * g + 0.0722 * b < 0.179 else "black"


def annotate_cells(ax, im, values: np.ndarray, fmt: str = "{:.2f}", missing: str = "n/a",
                   fontsize: float = 6.5) -> None:
    """Write each value on its heatmap cell in black or white by the cell's colour; a missing
    value gets ``missing`` in dark grey (the cell shows the axes' background)."""
    values = np.asarray(values, dtype=float)
    for (i, j), v in np.ndenumerate(values):
        if np.isnan(v):
            if missing:
                ax.text(j, i, missing, ha="center", va="center", fontsize=fontsize, color="0.25")
            continue
        color = text_color(im.cmap(im.norm(v)))
        ax.text(j, i, fmt.format(v), ha="center", va="center", fontsize=fontsize, color=color)


def heatmap(ax, values, rows: Sequence, cols: Sequence, *, cmap: str = "viridis", vmin=None, vmax=None,
            fmt: str = "{:.2f}", missing: str = "n/a", names: Mapping[str, str] | None = None):
    """A heatmap with row/column labels (model names shown by display name), numbers on the
    cells and missing cells in light grey; returns the image for the colour bar."""
    values = np.asarray(values, dtype=float)
    im = ax.imshow(np.ma.masked_invalid(values), cmap=cmap, vmin=vmin, vmax=vmax, aspect="auto")
    ax.set_facecolor("0.9")
    ax.set_xticks(range(len(cols)), displays(cols, names), rotation=40, ha="right")
    ax.set_yticks(range(len(rows)), displays(rows, names))
    ax.spines[:].set_visible(False)
    annotate_cells(ax, im, values, fmt, missing)
    return im


def colorbar(fig, im, ax, label: str, better: str | None = None, **kwargs):
    """A labelled colour bar; ``better`` ("lower" / "higher") adds which direction is better."""
    text = label + (f"\n({better} is better)" if better else "")
    cb = fig.colorbar(im, ax=ax, **kwargs)
    cb.set_label(text)
    return cb


def legend_outside(ax, title: str | None = None, **kwargs):
    """The legend to the right of the axes, so it never covers data."""
    return ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False, borderaxespad=0.0,
                     title=title, **kwargs)


def note(fig, text: str) -> None:
    """A footnote under the figure (definitions of abbreviations, units)."""
    fig.text(0.01, -0.01, text, ha="left", va="top", fontsize=6.5, color="0.2", wrap=True)


def no_data(ax, what: str) -> None:
    """Say on empty axes that there is nothing to draw (``what``: which rows are missing), so a
    run whose model outputs left a table empty still gets its figure, and the figure says why."""
    ax.text(0.5, 0.5, f"no data: {what}", ha="center", va="center", transform=ax.transAxes,
            fontsize=9, color="0.3")
    ax.set_xticks([])
    ax.set_yticks([])


def save(fig, out: str | Path, synthetic: Sequence[str] | None = None) -> Path:
    """Save ``fig`` at 300 dpi (tight bounding box) and close it.  A figure drawn from synthetic
    inputs (``synthetic``, else the running job's) carries a visible mark naming them."""
    keys = synthetic_inputs() if synthetic is None else list(synthetic)
    if keys:
        named = ", ".join(keys[:3]) + (f" and {len(keys) - 3} more" if len(keys) > 3 else "")
        fig.text(0.5, 1.0, f"{SYNTHETIC_MARK} ({named})", ha="center", va="bottom",
                 fontsize=7, color="#8a1c00", fontweight="bold",
                 bbox={"boxstyle": "round,pad=0.3", "facecolor": "#fff4d6", "edgecolor": "#d4a72c"})
        fig.text(0.5, 0.5, "SYNTHETIC", ha="center", va="center", rotation=25, fontsize=42,
                 color="#d4a72c", alpha=0.13, fontweight="bold", zorder=0)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=DPI, bbox_inches="tight", pad_inches=0.08)
    plt.close(fig)
    return out
