"""Provenance sidecars: every result table gets ``<table>.provenance.json``.

A sidecar records what made its table: the rule, its wildcards, the config
values the rule received (its narrow ``params``, hashed), the package code it
ran (``code``), the seed, the model (id, weight revision, backend, chat-template
hash) with its request counters (cache hits vs model calls) and the counts of
the generations behind the table (``outputs``: length-stopped, empty, cut,
reasoning tokens; ``cultalign.models.client.count_outputs``), the prompt-template
hashes, counts, the package versions of the running environment, and
``synthetic`` / ``synthetic_inputs``: the config keys of the synthetic inputs
the table was computed from, directly or through its input tables
(``cultalign.inputs``; a table is synthetic when any of its inputs is).
Write tables with :func:`cultalign.core.tables.write_table`, which writes both.

A sidecar is written atomically right after its table and carries the table's
content hash (``table_sha256``); :func:`read_sidecar` checks it, so a sidecar
left beside a table it does not describe (an older run's, a table rewritten by
hand) fails the reader naming both files instead of passing on stale
provenance.  A sidecar without the hash fails the reader the same way.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import tempfile
import time
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

TRACKED_PACKAGES = (
    "cultalign", "torch", "transformers", "vllm", "openai", "xgrammar", "snakemake", "pandas", "numpy",
    "scipy", "statsmodels", "rpy2", "faster-whisper", "ctranslate2", "pyannote.audio", "sentence-transformers",
    "langchain", "langchain-community", "faiss-cpu",
)


def dist_version(package: str) -> str:
    """Installed version of a distribution (import name or dist name), or "unknown"."""
    for name in (package, package.replace("_", "-")):
        try:
            return version(name)
        except PackageNotFoundError:
            continue
    return "unknown"


def package_versions(names=TRACKED_PACKAGES) -> dict[str, str]:
    out = {}
    for n in names:
        try:
            out[n] = version(n)
        except PackageNotFoundError:
            continue
    out["python"] = platform.python_version()
    return out


def text_hash(text: str) -> str:
    """The one short content hash of the project (prompt templates, texts): sha256, 16 hex digits."""
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def file_hash(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]


def canonical(value: Any) -> Any:
    """``value`` with every mapping's keys sorted, recursively (lists keep their order).

    Snakemake stores params as ``repr``: sorted keys make a param independent of
    the order in which config files were merged."""
    if isinstance(value, dict):
        return {str(k): canonical(value[k]) for k in sorted(value, key=str)}
    if isinstance(value, (list, tuple)):
        return [canonical(v) for v in value]
    return value


def params_hash(params: dict[str, Any]) -> str:
    return text_hash(json.dumps(canonical(params), sort_keys=True, default=str))


def sidecar_path(table: str | Path) -> Path:
    return Path(str(table) + ".provenance.json")


class StaleSidecarError(ValueError):
    """A sidecar that does not describe the table beside it."""


SNAKEMAKE_MARKERS = frozenset({".snakemake_timestamp"})


def content_hash(path: str | Path) -> str | None:
    """Full SHA-256 of a file, or of a folder (relative paths and contents of its files, sorted,
    without the marker files Snakemake adds); None when ``path`` does not exist."""
    p = Path(path)
    h = hashlib.sha256()
    if p.is_file():
        with open(p, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
        return h.hexdigest()
    if p.is_dir():
        # Snakemake touches .snakemake_timestamp into a directory output after its job
        for f in sorted(x for x in p.rglob("*") if x.is_file() and x.name not in SNAKEMAKE_MARKERS):
            h.update(str(f.relative_to(p)).encode() + b"\0" + bytes.fromhex(content_hash(f)) + b"\0")
        return h.hexdigest()
    return None


def sidecar_record(table: str | Path, *, job: dict[str, Any] | None = None, client=None, seed: int | None = None,
                   prompt_templates: dict[str, str] | None = None, counts: dict[str, Any] | None = None,
                   extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """The sidecar of ``table`` as a dict.  ``job``: rule, wildcards, params, code (see ``Job.record``)."""
    rec: dict[str, Any] = {"table": str(table), "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    if job:
        rec.update(job)
        if "params" in job:
            rec["params_hash"] = params_hash(job["params"])
    if seed is not None:
        rec["seed"] = seed
    if client is not None:
        rec["model"] = client.provenance()
        rec["requests"] = dict(client.stats)
        take = getattr(client, "take_output_counts", None)
        if take is not None:  # the generations behind this table: length-stopped, empty, cut, reasoning tokens
            rec["outputs"] = take()
        events = getattr(getattr(client, "cache", None), "events", None)
        if events and any(events.values()):  # cache damage met (and repaired) while making the table
            rec["cache_events"] = dict(events)
    if prompt_templates:
        rec["prompt_templates"] = prompt_templates
    if counts:
        rec["counts"] = counts
    if extra:
        rec.update(extra)
    # the synthetic mark: set by the job's inputs (Job.record), never unset by `extra`
    keys = sorted(set((job or {}).get("synthetic_inputs") or []))
    rec["synthetic_inputs"] = keys
    rec["synthetic"] = bool(keys) or bool((extra or {}).get("synthetic"))
    rec["packages"] = package_versions()
    rec["table_sha256"] = content_hash(table)
    return rec


def write_sidecar(table: str | Path, **kwargs) -> Path:
    """Write the provenance sidecar of ``table`` (keyword arguments: :func:`sidecar_record`), after the
    table itself: atomically (temporary file, then rename), with the table's content hash."""
    p = sidecar_path(table)
    text = json.dumps(sidecar_record(table, **kwargs), indent=2, sort_keys=True, default=str)
    fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=f".{p.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)  # mkstemp makes 0600; a sidecar gets the usual permissions
        os.replace(tmp, p)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return p


def rebuild_hint(path: str | Path) -> str:
    """How to rebuild one file a rule wrote (Snakemake sees an existing file as up to date, so a plain
    rerun would not)."""
    return f"rebuild it with `snakemake --cores 1 --force {path}` (and the run's --configfile options)"


def read_sidecar(table: str | Path, verify: bool = True) -> dict[str, Any]:
    """The sidecar of ``table`` ({} when it has none).  ``verify``: a sidecar whose recorded content
    hash is not the table's (or whose table is missing) raises :class:`StaleSidecarError`.

    The table is any output a rule wrote with a sidecar: a result table, or a rendered input such as
    the demo PDFs and recordings, where a mismatch most often means a damaged file (a truncated copy,
    an overwritten file), so the message says that, and how to rebuild the one file."""
    p = sidecar_path(table)
    if not p.exists():
        return {}
    try:
        rec = json.loads(p.read_text())
    except ValueError as e:
        raise StaleSidecarError(f"{p}: the provenance sidecar of {table} is not valid JSON ({e}): it is damaged; "
                                f"{rebuild_hint(table)}") from e
    if verify and "table_sha256" not in rec:
        raise StaleSidecarError(f"{p} records no table hash (table_sha256), so it cannot be checked against "
                                f"{table}; rerun the rule that writes {table} (or delete both files)")
    want = rec.get("table_sha256")
    if verify and want is not None:
        have = content_hash(table)
        rule = f"rule {rec['rule']}" if rec.get("rule") else "its rule"
        if have is None:
            raise StaleSidecarError(
                f"{table} is missing, but its provenance sidecar {p} is left (from a run whose file was removed); "
                f"delete the sidecar, or {rebuild_hint(table)}")
        if have != want:
            raise StaleSidecarError(
                f"{table} does not match what {rule} wrote: it has sha256 {have[:16]}..., its provenance sidecar "
                f"{p} records {want[:16]}.... The file may be damaged (truncated or overwritten) or was changed "
                f"after the rule wrote it, or the sidecar is left from another run; {rebuild_hint(table)}")
    return rec


UPSTREAM_SYNTHETIC = "(an input table marked synthetic)"


def synthetic_inputs_of_files(paths) -> list[str]:
    """Config keys of the synthetic inputs recorded in the sidecars of ``paths`` (files without a
    sidecar add nothing; if sidecars say synthetic but name no key: [UPSTREAM_SYNTHETIC])."""
    keys: set[str] = set()
    unnamed = False
    for p in paths:
        rec = read_sidecar(p)
        keys.update(rec.get("synthetic_inputs") or [])
        unnamed |= bool(rec.get("synthetic")) and not rec.get("synthetic_inputs")
    return sorted(keys) or ([UPSTREAM_SYNTHETIC] if unnamed else [])
