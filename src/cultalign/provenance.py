"""Provenance sidecars: every result table gets ``<table>.provenance.json``.

It records model id and weight revision, backend, chat-template and
prompt-template hashes, the config hash, seed, the package versions in the
running environment and the request counters (cache hits vs model calls).
"""

from __future__ import annotations

import hashlib
import json
import platform
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


def file_hash(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def sidecar_path(table: str | Path) -> Path:
    return Path(str(table) + ".provenance.json")


def write_sidecar(table: str | Path, *, config: dict | None = None, client=None, seed: int | None = None,
                  prompt_templates: dict[str, str] | None = None, counts: dict[str, Any] | None = None,
                  extra: dict[str, Any] | None = None) -> Path:
    """Write the provenance sidecar of ``table``; returns its path."""
    from .config import config_hash

    rec: dict[str, Any] = {"table": str(table), "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    if config is not None:
        rec["config_hash"] = config_hash(config)
        rec["run_name"] = config.get("run_name")
    if seed is not None:
        rec["seed"] = seed
    if client is not None:
        rec["model"] = {"name": client.spec.name, **client.spec.identity(), "chat_template_hash": client.template_hash()}
        rec["requests"] = dict(client.stats)
    if prompt_templates:
        rec["prompt_templates"] = prompt_templates
    if counts:
        rec["counts"] = counts
    if extra:
        rec.update(extra)
    rec["packages"] = package_versions()
    p = sidecar_path(table)
    p.write_text(json.dumps(rec, indent=2, sort_keys=True, default=str))
    return p
