"""The model outputs behind each table, from the sidecars: the report page ``results/model_outputs``.

Every table a model rule writes records in its sidecar the generations behind it
(``outputs``: how many, stopped at the token budget, empty, cut, and the hidden
reasoning tokens the provider reported; ``cultalign.models.client.count_outputs``).
``output_count_rows`` lists them, one row per table, with the cut share that
config ``model_outputs.max_cut_share`` bounds.  Gathered tables (sidecars with
``shards``) repeat their shards' counts and are left out; a sidecar that does not
describe the table beside it (another run's) is left out and named in the log.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Sequence

import pandas as pd

from .provenance import StaleSidecarError, read_sidecar

log = logging.getLogger(__name__)

COUNTS = ["outputs", "length_stopped", "empty", "cut", "reasoning_tokens"]
COLUMNS = ["table", "rule", "model", "family", *COUNTS, "cut_share"]
SUFFIX = ".provenance.json"


def output_count_rows(folder: str | Path, exclude: Sequence[str | Path] = ()) -> pd.DataFrame:
    """One row per table under ``folder`` whose sidecar counts model outputs (``exclude``: tables to leave out)."""
    folder = Path(folder)
    skip = {Path(p).resolve() for p in exclude}
    rows = []
    for side in sorted(folder.rglob("*" + SUFFIX)):
        table = Path(str(side)[: -len(SUFFIX)])
        if table.resolve() in skip:
            continue
        try:
            rec = read_sidecar(table)
        except StaleSidecarError as e:
            log.warning("left out: %s", e)
            continue
        counts = rec.get("outputs")
        if not counts or "shards" in rec:
            continue
        n = int(counts.get("outputs", 0))
        model = rec.get("model") or {}
        rows.append({"table": str(table),
                     "rule": rec.get("rule", ""), "model": model.get("name", ""), "family": model.get("family") or "",
                     **{k: int(counts.get(k, 0)) for k in COUNTS},
                     "cut_share": round(counts.get("cut", 0) / n, 4) if n else 0.0})
    return pd.DataFrame(rows, columns=COLUMNS)
