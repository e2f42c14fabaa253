"""Annotation agreement of the human validation (appendix A.4, table 2)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..stats.agreement import agreement_summary
from ..core.inputs import read_table, row_error
from .ingest import PactDataError

COLUMNS = ("item_id", "annotator", "criterion", "label")


def read_annotations(path: str | Path) -> pd.DataFrame:
    """The annotation file (TSV: item_id, annotator, criterion, label), checked line by line."""
    return read_table(path, sep="\t", required=COLUMNS, integer=["label"], keep_default_na=False,
                      na_values=[""])


def agreement_table(ann: pd.DataFrame, path: str = "annotations") -> pd.DataFrame:
    """Per criterion and pooled over criteria (item x criterion as units): observed agreement,
    PABAK / Brennan-Prediger, Gwet's AC1, positive agreement, Cohen's kappa, plus pass rates."""
    missing = [c for c in COLUMNS if c not in ann.columns]
    if missing:
        raise PactDataError(path, f"missing column(s) {missing}; found {list(ann.columns)}", row=1,
                            field=missing[0])
    bad = ~ann["label"].isin([0, 1])
    if bad.any():
        i = int(bad.to_numpy().nonzero()[0][0])
        raise row_error(ann, i, "label", f"expected 0 or 1, got {ann['label'].iloc[i]!r}", path=path)
    rows = []
    ann = ann.assign(unit=ann["item_id"].astype(str) + "|" + ann["criterion"].astype(str))
    for crit, g in [*ann.groupby("criterion"), ("pooled", ann)]:
        wide = g.pivot_table(index="unit", columns="annotator", values="label", aggfunc="first")
        s = agreement_summary(wide, positive=1, categories=[0, 1])
        s["positive_rate"] = float(g["label"].mean())
        s = {k: (int(v) if k.startswith("n_") else v) for k, v in s.items()}
        rows.append({"criterion": crit, **s})
    per_item = ann.groupby(["item_id", "criterion"])["label"].mean().unstack()
    rows.append({"criterion": "all_three_passed", "n_items": len(per_item),
                 "positive_rate": float((per_item >= 0.5).all(axis=1).mean())})
    return pd.DataFrame(rows)
