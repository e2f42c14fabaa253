"""Deterministic sharding of a stage's rows (row i goes to shard i mod n)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd


def select(df: pd.DataFrame, shard: str | int, n: int) -> pd.DataFrame:
    k = int(shard)
    if not 0 <= k < n:
        raise ValueError(f"shard {shard} out of range for {n} shards")
    return df.iloc[[i for i in range(len(df)) if i % n == k]].reset_index(drop=True)


def gather(paths: list[str]) -> tuple[pd.DataFrame, dict]:
    """Concatenate shard tables; sum the integer counts of their sidecars."""
    frames = [pd.read_csv(p, sep="\t", keep_default_na=False, na_values=[""]) for p in paths]
    frames = [f for f in frames if len(f.columns)]
    df = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    counts: dict = {}
    for p in paths:
        side = Path(str(p) + ".provenance.json")
        if side.exists():
            for k, v in json.loads(side.read_text()).get("counts", {}).items():
                if isinstance(v, (int, float)) and not isinstance(v, bool):
                    counts[k] = counts.get(k, 0) + v
    return df, counts


def read_tsv(path) -> pd.DataFrame:
    return pd.read_csv(path, sep="\t", keep_default_na=False, na_values=[""])
