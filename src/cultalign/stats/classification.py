"""Classification figures for annotation tables (Cohen's kappa: ``stats.agreement``):
per-class precision / recall / F1 with macro and weighted
averages (scikit-learn), and error rates with their counts."""

from __future__ import annotations

import numpy as np
import pandas as pd


def classification_table(y_true, y_pred, labels: list[str] | None = None) -> pd.DataFrame:
    """Rows: each class, then macro and weighted averages; columns precision, recall, f1, support."""
    from sklearn.metrics import precision_recall_fscore_support

    labels = labels or sorted(set(y_true) | set(y_pred))
    p, r, f, s = precision_recall_fscore_support(y_true, y_pred, labels=labels, zero_division=0)
    rows = [{"class": lab, "precision": p[i], "recall": r[i], "f1": f[i], "support": int(s[i])}
            for i, lab in enumerate(labels)]
    for avg in ("macro", "weighted"):
        pa, ra, fa, _ = precision_recall_fscore_support(y_true, y_pred, labels=labels, average=avg, zero_division=0)
        rows.append({"class": avg, "precision": pa, "recall": ra, "f1": fa, "support": int(np.sum(s))})
    return pd.DataFrame(rows)


def error_rate(flags) -> tuple[float, int, int]:
    flags = np.asarray(list(flags), dtype=int)
    n = len(flags)
    return (float(flags.mean()) if n else float("nan")), int(flags.sum()), n
