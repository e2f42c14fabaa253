"""Versioned prompt templates beside the code: loading and hashing."""

from __future__ import annotations

from pathlib import Path

from ..provenance import text_hash

PROMPT_DIR = Path(__file__).parent / "prompts"


def template(name: str) -> str:
    return (PROMPT_DIR / f"{name}.txt").read_text()


def template_hashes(*names: str) -> dict[str, str]:
    return {n: text_hash(template(n)) for n in names}
