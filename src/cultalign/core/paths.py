"""Where the package and the workflow live: the one place that locates them.

``SOURCE_DIR`` is the folder the ``cultalign`` package is imported from (``src/``);
``workflow_root()`` is the workflow's root folder (``Snakefile`` and ``config/schema/``),
found above the package, else above the working directory (Snakemake runs jobs there).
Nothing is read from the workflow's files here; a module that needs one (the config
schema, the demo inputs) asks for the root when it reads it, never at import.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

SOURCE_DIR = Path(__file__).resolve().parents[2]  # src/, holding the cultalign package
MARKERS = ("Snakefile", "config/schema/core.yaml")


def _is_root(folder: Path) -> bool:
    return all((folder / m).is_file() for m in MARKERS)


@lru_cache(maxsize=None)
def workflow_root() -> Path:
    """The workflow's root folder: the nearest folder above the package, else above the working
    directory, that holds ``Snakefile`` and ``config/schema/core.yaml``."""
    starts = (SOURCE_DIR, Path.cwd().resolve())
    for start in starts:
        for folder in (start, *start.parents):
            if _is_root(folder):
                return folder
    raise FileNotFoundError(f"no workflow root (a folder with {' and '.join(MARKERS)}) above "
                            + " or ".join(str(s) for s in starts))


def schema_dir() -> Path:
    """The config schema's folder (``config/schema/``)."""
    return workflow_root() / "config" / "schema"
