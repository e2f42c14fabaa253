"""Validation tables of Appendix A from annotation files.

* mapping (Table 2): TSV with item, annotator_1, annotator_2, system (labels
  M / NM); items both annotators labelled give Cohen's kappa; the system is
  scored against annotator_1 (annotator_2 where annotator_1 is empty).
* matching (A.4): TSV with pair_id, annotator, issue (0/1): the error rate.
* dilemmas (A.2, Table 3): the filled export of rule monopolet_annotation_samples
  (item, annotator, Missing, Mis-Un, Hall, Not-In; 1 / 0, empty = 0): per issue
  type the number and share of annotated dilemmas, and any issue (the paper: 74
  of 300, 24%).
Output rows: (table, quantity, class, value).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..core.inputs import InputError, read_table, row_error
from ..stats.agreement import cohen_kappa
from ..stats.classification import classification_table, error_rate


AnnotationError = InputError  # an annotation file that does not match its schema (file, line, field, key)


def _read(path, required):
    return read_table(path, sep="\t", required=required, dtype=str, keep_default_na=False)


def mapping_agreement(path: str | Path) -> pd.DataFrame:
    df = _read(path, ["item", "annotator_1", "annotator_2", "system"])
    for i, r in df.iterrows():
        for c in ("annotator_1", "annotator_2", "system"):
            if r[c] not in ("", "M", "NM"):
                raise row_error(df, i, c, f"expected M, NM or empty, got {r[c]!r}")
    both = df[(df.annotator_1 != "") & (df.annotator_2 != "")]
    rows = [("mapping", "kappa", "", cohen_kappa(both.annotator_1, both.annotator_2)),
            ("mapping", "n_double_annotated", "", len(both))]
    gold = df.annotator_1.where(df.annotator_1 != "", df.annotator_2)
    ok = (gold != "") & (df.system != "")
    rows.append(("mapping", "accuracy", "", float((gold[ok] == df.system[ok]).mean())))
    rows.append(("mapping", "n_items", "", int(ok.sum())))
    tab = classification_table(gold[ok], df.system[ok], labels=["M", "NM"])
    for r in tab.itertuples():
        for q in ("precision", "recall", "f1", "support"):
            rows.append(("mapping", q, r._1, float(getattr(r, q))))
    return pd.DataFrame(rows, columns=["table", "quantity", "class", "value"])


def matching_errors(path: str | Path) -> pd.DataFrame:
    df = _read(path, ["pair_id", "annotator", "issue"])
    bad = df[~df.issue.isin(["0", "1"])]
    if len(bad):
        raise row_error(df, int(bad.index[0]), "issue", f"expected 0 or 1, got {bad.issue.iloc[0]!r}")
    rate, k, n = error_rate(df.issue.astype(int))
    return pd.DataFrame([("matching", "error_rate", "", rate), ("matching", "errors", "", k),
                         ("matching", "pairs", "", n)], columns=["table", "quantity", "class", "value"])


def dilemma_issues(path: str | Path) -> pd.DataFrame:
    from .annotation_samples import DILEMMA_ISSUES

    df = _read(path, ["item", "annotator", *DILEMMA_ISSUES])
    for c in DILEMMA_ISSUES:
        bad = df[~df[c].isin(["", "0", "1"])]
        if len(bad):
            raise row_error(df, int(bad.index[0]), c, f"expected 1, 0 or empty, got {bad[c].iloc[0]!r}")
    flags = df[DILEMMA_ISSUES].replace("", "0").astype(int)
    n = len(df)
    rows = [("dilemma_issues", "dilemmas", "", n)]
    for c in DILEMMA_ISSUES:
        k = int(flags[c].sum())
        rows += [("dilemma_issues", "count", c, k), ("dilemma_issues", "share", c, k / n if n else float("nan"))]
    anyk = int((flags.sum(axis=1) > 0).sum())
    rows += [("dilemma_issues", "count", "any", anyk),
             ("dilemma_issues", "share", "any", anyk / n if n else float("nan"))]
    return pd.DataFrame(rows, columns=["table", "quantity", "class", "value"])


def annotation_table(mapping: str | Path | None, matching: str | Path | None,
                     dilemmas: str | Path | None = None) -> pd.DataFrame:
    """The validation rows of the given annotation files (none given: an empty table)."""
    parts = []
    if mapping:
        parts.append(mapping_agreement(mapping))
    if matching:
        parts.append(matching_errors(matching))
    if dilemmas:
        parts.append(dilemma_issues(dilemmas))
    cols = ["table", "quantity", "class", "value"]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=cols)
