"""The workflow root is located in one place (``cultalign.core.paths``), and no module reads
a file of the workflow (the config schema) when it is imported."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from cultalign.core import paths

ROOT = Path(__file__).resolve().parents[2]

IMPORT_ALL = """
import importlib, json, pkgutil, sys
opened = []
sys.addaudithook(lambda e, a: opened.append(a[0]) if e == "open" and isinstance(a[0], str) else None)
import cultalign
failed = []
for m in pkgutil.walk_packages(cultalign.__path__, "cultalign."):
    try:
        importlib.import_module(m.name)
    except Exception as e:
        failed.append(f"{m.name}: {e!r}")
print(json.dumps({"opened": opened, "failed": failed}))
"""


def test_workflow_root_is_the_repository():
    assert paths.workflow_root() == ROOT
    assert paths.schema_dir() == ROOT / "config" / "schema"
    assert paths.SOURCE_DIR == ROOT / "src"


def test_workflow_root_above_the_working_directory(tmp_path, monkeypatch):
    # a package outside any workflow (installed elsewhere): the root is found above the working directory
    wf = tmp_path / "wf"
    (wf / "config" / "schema").mkdir(parents=True)
    (wf / "Snakefile").write_text("")
    (wf / "config" / "schema" / "core.yaml").write_text("type: object\n")
    (wf / "results" / "x").mkdir(parents=True)
    monkeypatch.setattr(paths, "SOURCE_DIR", tmp_path / "elsewhere" / "src")
    monkeypatch.chdir(wf / "results" / "x")
    assert paths.workflow_root.__wrapped__() == wf.resolve()
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FileNotFoundError, match="Snakefile"):
        paths.workflow_root.__wrapped__()


def test_no_module_reads_the_workflow_files_at_import():
    run = subprocess.run([sys.executable, "-c", IMPORT_ALL], capture_output=True, text=True, check=True,
                         cwd=ROOT / "src")
    got = json.loads(run.stdout.strip().splitlines()[-1])
    # modules that read the schema or climbed to the repository before must import here
    must = ("cultalign.config", "cultalign.models.types", "cultalign.planning", "cultalign.inputs")
    assert not [f for f in got["failed"] if f.split(":")[0] in must], got["failed"]
    skip = (ROOT / "src", (ROOT / ".venv").resolve())
    read = sorted({p for p in got["opened"] if Path(p).resolve().is_relative_to(ROOT)
                   and not any(Path(p).resolve().is_relative_to(s) for s in skip)})
    assert not read, f"read at import time: {read}"


def test_one_place_locates_the_repository():
    """``Path(__file__).parents[N]`` only in ``core/paths.py``: every other module asks it."""
    pattern = re.compile(r"parents\[\d+\]|__file__\)(\.resolve\(\))?\.parent\.parent")
    found = [f"{f.relative_to(ROOT)}:{i}" for f in sorted((ROOT / "src").rglob("*.py")) if f.name != "paths.py"
             for i, line in enumerate(f.read_text().splitlines(), 1) if pattern.search(line)]
    assert not found, found
