"""Distribution distances between score samples (generic helpers).

Wasserstein-1 distance and the two-sample Kolmogorov-Smirnov test come from
scipy.stats; this module only adds the bookkeeping used by several studies:
pairwise comparisons, relative improvement, and NaN-safe handling of empty
samples (an empty sample gives NaN, never an exception or a silent zero).
"""

from __future__ import annotations

import itertools
import math
from typing import Iterable, Mapping, Sequence

import numpy as np
from scipy import stats


def _clean(x: Iterable[float]) -> np.ndarray:
    a = np.asarray(list(x), dtype=float)
    return a[~np.isnan(a)]


def wasserstein(a: Iterable[float], b: Iterable[float]) -> float:
    """Wasserstein-1 (earth mover's) distance between two 1-d samples; NaN if either is empty."""
    a, b = _clean(a), _clean(b)
    if len(a) == 0 or len(b) == 0:
        return math.nan
    return float(stats.wasserstein_distance(a, b))


def ks(a: Iterable[float], b: Iterable[float]) -> tuple[float, float]:
    """Two-sample KS statistic and p-value; (NaN, NaN) if either sample is empty."""
    a, b = _clean(a), _clean(b)
    if len(a) == 0 or len(b) == 0:
        return math.nan, math.nan
    r = stats.ks_2samp(a, b)
    return float(r.statistic), float(r.pvalue)


def compare(a: Iterable[float], b: Iterable[float]) -> dict[str, float]:
    a, b = _clean(a), _clean(b)
    ks_stat, ks_p = ks(a, b)
    return {"W": wasserstein(a, b), "KS": ks_stat, "KS_p": ks_p, "n_a": int(len(a)), "n_b": int(len(b))}


def pairwise(samples: Mapping[str, Sequence[float]], pairs: Sequence[tuple[str, str]] | None = None) -> list[dict]:
    """W and KS for every pair of named samples (or the given pairs)."""
    names = list(samples)
    pairs = pairs if pairs is not None else list(itertools.combinations(names, 2))
    out = []
    for x, y in pairs:
        out.append({"a": x, "b": y, **compare(samples[x], samples[y])})
    return out


def relative_improvement(baseline: float, new: float) -> float:
    """Percentage reduction of a distance: 100 * (baseline - new) / baseline (NaN when undefined)."""
    if baseline is None or new is None or not np.isfinite(baseline) or not np.isfinite(new) or baseline == 0:
        return math.nan
    return 100.0 * (baseline - new) / baseline


def significance_stars(p: float) -> str:
    if p is None or not np.isfinite(p):
        return ""
    return "**" if p < 0.01 else "*" if p < 0.05 else ""
