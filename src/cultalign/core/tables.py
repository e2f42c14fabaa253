"""Reading and writing the workflow's tables (TSV), each with its provenance sidecar.

One convention everywhere: tab-separated, UTF-8, a header row, no index; text
cells are read as text (``keep_default_na=False``: "NA" or "None" in an answer
stay strings), empty cells as empty strings unless ``empty_as_na``.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any, Sequence

import pandas as pd

from .inputs import InputError
from .provenance import sidecar_path, write_sidecar


def read_tsv(path: str | Path, *, required: Sequence[str] = (), empty_as_na: bool = False,
             **kwargs: Any) -> pd.DataFrame:
    """Read a TSV table the workflow wrote; a missing required column fails naming the file and the column.
    (Input files from users and releases go through ``cultalign.core.inputs``, which also names lines.)"""
    df = pd.read_csv(path, sep="\t", keep_default_na=False, na_values=[""] if empty_as_na else None, **kwargs)
    missing = [c for c in required if c not in df.columns]
    if missing:
        raise InputError(path, f"missing column(s) {missing}; found {list(df.columns)}", row=1, field=missing[0])
    return df


def write_tsv(df: pd.DataFrame, path: str | Path) -> Path:
    """Write ``df`` atomically (temporary file in the same folder, then rename)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        df.to_csv(tmp, sep="\t", index=False)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; a table gets the usual permissions
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return path


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_table(df: pd.DataFrame, path: str | Path, **provenance: Any) -> Path:
    """Write the table and its sidecar (keyword arguments: ``provenance.sidecar_record``).

    A stale sidecar is removed before the table is written, so a table never
    sits beside the sidecar of an earlier run.  With a model ``client``, a table more
    of whose model outputs were cut than config ``model_outputs.max_cut_share`` allows
    is not written (``ModelClient.check_outputs`` raises)."""
    sidecar_path(path).unlink(missing_ok=True)
    check = getattr(provenance.get("client"), "check_outputs", None)
    if check is not None:  # too many model outputs cut at the token budget: fail, write nothing
        check(str(path))
    write_tsv(df, path)
    write_sidecar(path, **provenance)
    return Path(path)
