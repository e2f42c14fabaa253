"""Split large prompt tables into shards (one SLURM job each) and gather them.

Rules take a ``{shard}`` wildcard (``000``, ``001``, ...); ``shard_rows`` picks
a contiguous, deterministic slice, so a failed shard reruns alone and the
gather restores the original order.
"""

from __future__ import annotations

from typing import Sequence

import pandas as pd


def shard_bounds(n_rows: int, n_shards: int, shard: int) -> tuple[int, int]:
    if n_shards < 1 or not 0 <= shard < n_shards:
        raise ValueError(f"shard {shard} out of range for {n_shards} shards")
    return (n_rows * shard) // n_shards, (n_rows * (shard + 1)) // n_shards


def shard_rows(df: pd.DataFrame, n_shards: int, shard: int | str) -> pd.DataFrame:
    lo, hi = shard_bounds(len(df), n_shards, int(shard))
    return df.iloc[lo:hi]


def gather(frames: Sequence[pd.DataFrame]) -> pd.DataFrame:
    return pd.concat(list(frames), ignore_index=True) if frames else pd.DataFrame()
