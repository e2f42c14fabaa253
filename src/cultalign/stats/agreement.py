"""Inter-annotator agreement for categorical labels.

Input is a ratings matrix: one row per item, one column per rater, NaN where a
rater did not label the item.  Pairwise quantities (observed agreement,
positive agreement, Cohen's kappa) use every pair of raters on every item both
labelled; chance-corrected multi-rater coefficients (Brennan-Prediger = PABAK
for two categories, Gwet's AC1) come from ``irrCAC``.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd


def _pairs(ratings: pd.DataFrame):
    """(a, b) label pairs over all rater pairs and items where both rated."""
    cols = list(ratings.columns)
    out = []
    for i, j in itertools.combinations(range(len(cols)), 2):
        sub = ratings.iloc[:, [i, j]].dropna()
        out.extend(zip(sub.iloc[:, 0].tolist(), sub.iloc[:, 1].tolist()))
    return out


def overlapping(ratings: pd.DataFrame) -> pd.DataFrame:
    """Items labelled by at least two raters (agreement is only defined there)."""
    return ratings[ratings.notna().sum(axis=1) >= 2]


def observed_agreement(ratings: pd.DataFrame) -> float:
    """Share of agreeing rater pairs (pooled over items)."""
    pairs = _pairs(ratings)
    if not pairs:
        return math.nan
    return float(np.mean([a == b for a, b in pairs]))


def positive_agreement(ratings: pd.DataFrame, positive=1) -> float:
    """Specific agreement on the positive category: 2a / (2a + b + c) over rater pairs."""
    pairs = _pairs(ratings)
    both = sum(a == positive and b == positive for a, b in pairs)
    one = sum((a == positive) != (b == positive) for a, b in pairs)
    denom = 2 * both + one
    return float(2 * both / denom) if denom else math.nan


def cohen_kappa(a, b) -> float:
    """Cohen's kappa of two raters' paired labels (statsmodels), the one kappa of the project.

    NaN when it is undefined: no pairs, or a table with a single category
    (both raters used one label throughout, so expected agreement is 1 and
    kappa is 0/0); report observed agreement beside it."""
    from statsmodels.stats.inter_rater import cohens_kappa

    a, b = list(a), list(b)
    if len(a) != len(b):
        raise ValueError(f"Cohen's kappa needs paired labels, got {len(a)} and {len(b)}")
    cats = sorted(set(a) | set(b), key=str)
    if not a or len(cats) < 2:
        return math.nan
    index = {c: k for k, c in enumerate(cats)}
    table = np.zeros((len(cats), len(cats)))
    for x, y in zip(a, b):
        table[index[x], index[y]] += 1
    return float(cohens_kappa(table).kappa)


def mean_pairwise_kappa(ratings: pd.DataFrame) -> float:
    """Mean of :func:`cohen_kappa` over rater pairs with >= 2 shared items (undefined pairs skipped)."""
    cols = list(ratings.columns)
    ks = []
    for i, j in itertools.combinations(range(len(cols)), 2):
        sub = ratings.iloc[:, [i, j]].dropna()
        if len(sub) < 2:
            continue
        k = cohen_kappa(sub.iloc[:, 0], sub.iloc[:, 1])
        if not math.isnan(k):
            ks.append(k)
    return float(np.mean(ks)) if ks else math.nan


def _cac(ratings: pd.DataFrame, categories=None):
    from irrCAC.raw import CAC

    return CAC(overlapping(ratings).reset_index(drop=True), categories=categories)


def brennan_prediger(ratings: pd.DataFrame, categories=None) -> float:
    """Brennan-Prediger coefficient (= PABAK for two categories), via irrCAC."""
    return float(_cac(ratings, categories).bp()["est"]["coefficient_value"])


def gwet_ac1(ratings: pd.DataFrame, categories=None) -> float:
    """Gwet's AC1, via irrCAC."""
    return float(_cac(ratings, categories).gwet()["est"]["coefficient_value"])


def agreement_summary(ratings: pd.DataFrame, positive=1, categories=None) -> dict[str, float]:
    """All agreement measures on the items labelled by at least two raters."""
    ov = overlapping(ratings)
    return {
        "n_items": int(len(ratings)),
        "n_overlap_items": int(len(ov)),
        "n_rater_pairs": len(_pairs(ov)),
        "observed_agreement": observed_agreement(ov),
        "pabak_brennan_prediger": brennan_prediger(ov, categories) if len(ov) else math.nan,
        "gwet_ac1": gwet_ac1(ov, categories) if len(ov) else math.nan,
        "positive_agreement": positive_agreement(ov, positive),
        "cohen_kappa": mean_pairwise_kappa(ov),
    }
