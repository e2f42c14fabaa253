"""Sharding of a stage's rows: one job per shard, gathered back in the original order.

Rules take a ``{shard}`` wildcard (``000``, ``001``, ...; ``shard_ids``).
``select`` keeps a contiguous, deterministic slice of the rows, so a failed
shard reruns alone, and concatenating the shards in shard order (``gather``)
restores the input order exactly.
"""

from __future__ import annotations

from typing import Sequence

import pandas as pd


def shard_ids(n_shards: int) -> list[str]:
    """Wildcard values of ``n_shards`` shards."""
    if n_shards < 1:
        raise ValueError(f"the number of shards must be at least 1, got {n_shards}")
    return [f"{i:03d}" for i in range(n_shards)]


def shard_bounds(n_rows: int, n_shards: int, shard: int) -> tuple[int, int]:
    if n_shards < 1 or not 0 <= shard < n_shards:
        raise ValueError(f"shard {shard} out of range for {n_shards} shards")
    return (n_rows * shard) // n_shards, (n_rows * (shard + 1)) // n_shards


def select(df: pd.DataFrame, shard: int | str, n_shards: int) -> pd.DataFrame:
    """The rows of shard ``shard`` (a contiguous slice), index reset."""
    lo, hi = shard_bounds(len(df), n_shards, int(shard))
    return df.iloc[lo:hi].reset_index(drop=True)


def gather(frames: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """Concatenate shard tables given in shard order (empty shards allowed)."""
    frames = [f for f in frames if len(f.columns)]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
