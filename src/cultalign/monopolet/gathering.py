"""Gathering the tables of a sharded stage (and the per-episode sections):
the tables in shard order (``cultalign.core.shards.gather``), their sidecars'
counts summed, and the model, prompts, seed and request counters they share.
The gathered sections lose their longest fraction (``drop_longest``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import numpy as np
import pandas as pd

from ..core.provenance import read_sidecar
from ..core.shards import gather
from ..core.tables import read_tsv


def read_parts(paths: Sequence[str | Path]) -> list[pd.DataFrame]:
    """The part tables, empty cells as NaN (how the study reads its tables)."""
    return [read_tsv(p, empty_as_na=True) for p in paths]


def _sidecars(paths: Sequence[str | Path]) -> list[dict[str, Any]]:
    return [s for s in (read_sidecar(p) for p in paths) if s]


def summed_counts(paths: Sequence[str | Path]) -> dict[str, int | float]:
    """The numeric ``counts`` of the parts' sidecars, summed key by key."""
    counts: dict[str, int | float] = {}
    for side in _sidecars(paths):
        for k, v in side.get("counts", {}).items():
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                counts[k] = counts.get(k, 0) + v
    return counts


def shared_provenance(paths: Sequence[str | Path]) -> dict[str, Any]:
    """Number of shards; model, prompt templates and seed of the first shard; request counters
    and model-output counts summed over the shards (when every shard has them)."""
    sides = _sidecars(paths)
    extra: dict[str, Any] = {"shards": len(paths)}
    if sides:
        extra.update({k: sides[0][k] for k in ("model", "prompt_templates", "seed") if k in sides[0]})
        if all("requests" in s for s in sides):
            extra["requests"] = {k: sum(s["requests"][k] for s in sides) for k in sides[0]["requests"]}
        if all("outputs" in s for s in sides):  # length-stopped, empty, cut outputs and reasoning tokens
            extra["outputs"] = {k: sum(s["outputs"].get(k, 0) for s in sides) for k in sides[0]["outputs"]}
    return extra


def gather_parts(paths: Sequence[str | Path]) -> tuple[pd.DataFrame, dict[str, int | float], dict[str, Any]]:
    """(the parts concatenated in the given order, their summed counts, their shared provenance)."""
    return gather(read_parts(paths)), summed_counts(paths), shared_provenance(paths)


def drop_longest(sections: pd.DataFrame, fraction: float) -> pd.DataFrame:
    """Mark the longest ``fraction`` of usable sections (by words) as ``dropped_longest``."""
    out = sections.copy()
    ok = out[out["status"] == "ok"]
    k = int(np.floor(len(ok) * fraction))
    if k > 0:
        idx = ok.sort_values("n_words", ascending=False).index[:k]
        out.loc[idx, "status"] = "dropped_longest"
    return out


def gather_sections(frames: list[pd.DataFrame], counts: dict[str, int],
                    drop_longest_fraction: float) -> tuple[pd.DataFrame, dict[str, int]]:
    """All episodes' sections (``frames`` in episode order, ``counts`` summed from their sidecars)
    with the longest fraction marked ``dropped_longest``, and the counts of the whole table."""
    df = drop_longest(gather(frames), drop_longest_fraction)
    df["valid"] = df["status"] == "ok"
    counts = dict(counts)
    counts.update({f"status_{k}": int(v) for k, v in df["status"].value_counts().items()})
    counts["valid"], counts["invalid"] = int(df["valid"].sum()), int((~df["valid"]).sum())
    return df, counts
