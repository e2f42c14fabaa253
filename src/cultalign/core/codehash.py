"""Package code as a rerun trigger.

Snakemake reruns a ``script:`` rule when the script file changes, but not when
a package module the script imports changes.  ``code_hash(script)`` hashes
every module of this package that the script reaches through its imports (the
transitive closure, lazy imports inside functions included, modules named
by a string literal such as ``"cultalign.pact.study"`` included, package
``__init__`` files included) together with the data folders those modules
name (``prompts/``, ``lexicons/``: a string literal naming a subfolder of the
module's folder that is not itself a package).  ``rules/common.smk`` adds it
to every script rule as the param ``code``, so Snakemake's params trigger
reruns exactly the rules whose code changed.
"""

from __future__ import annotations

import ast
import hashlib
from functools import lru_cache
from pathlib import Path

from .paths import SOURCE_DIR

PACKAGE = "cultalign"
SRC = SOURCE_DIR  # .../src


def _module_file(name: str) -> Path | None:
    """The file of module ``name`` under SRC (a package's ``__init__.py``), or None."""
    base = SRC.joinpath(*name.split("."))
    for cand in (base.with_suffix(".py"), base / "__init__.py"):
        if cand.is_file():
            return cand
    return None


def _module_name(path: Path) -> str:
    rel = path.relative_to(SRC).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _parents(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


@lru_cache(maxsize=None)
def _parse(path: Path) -> tuple[frozenset[str], frozenset[Path]]:
    """(package modules imported by ``path``, data files it names)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    is_pkg = path.name == "__init__.py"
    here = _module_name(path) if path.is_relative_to(SRC) else ""
    pkg = here if is_pkg else here.rpartition(".")[0]
    names: set[str] = set()
    literals: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg.split(".") if pkg else []
                base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            names.add(mod)
            names.update(f"{mod}.{a.name}" for a in node.names)  # `from pkg import module`
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) < 64:
            literals.add(node.value)
    # a string literal that names a package module is an import too (the registry of studies,
    # cultalign.studies, imports each study's module by its name)
    names.update(lit for lit in literals if lit.startswith(PACKAGE + ".") and " " not in lit)
    mods = frozenset(n for n in names if (n == PACKAGE or n.startswith(PACKAGE + ".")) and _module_file(n))
    data: set[Path] = set()
    folder = path.parent
    for lit in literals:
        d = folder / lit
        # a subfolder of the module's own folder by its name ("prompts"); "." and ".." (a regex's or
        # a text's dots) name no data folder
        if lit.strip(".") and "/" not in lit and d.is_dir() and not (d / "__init__.py").exists():
            data.update(p for p in d.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    return mods, frozenset(data)


def code_files(script: str | Path) -> list[Path]:
    """The package files (modules and named data files) that ``script`` depends on, sorted."""
    seen: set[str] = set()
    files: set[Path] = set()
    mods, data = _parse(Path(script).resolve())
    files.update(data)
    todo = list(mods)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo.extend(p for p in _parents(name) if _module_file(p))
        f = _module_file(name)
        if f is None:
            continue
        files.add(f)
        sub_mods, sub_data = _parse(f)
        files.update(sub_data)
        todo.extend(sub_mods)
    return sorted(files)


def code_hash(script: str | Path) -> str:
    """A short sha256 over the relative paths and contents of :func:`code_files`."""
    h = hashlib.sha256()
    for f in code_files(script):
        h.update(str(f.relative_to(SRC)).encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()[:16]
