"""Prompt templates of the study: versioned text files beside this module.

Templates use ``$name`` placeholders (string.Template), so JSON examples in
the text need no escaping.  ``template_hashes`` goes into provenance sidecars.
"""

from __future__ import annotations

from pathlib import Path
from string import Template

from ..provenance import text_hash

PROMPT_DIR = Path(__file__).parent / "prompts"


def template_text(name: str) -> str:
    return (PROMPT_DIR / f"{name}.txt").read_text(encoding="utf-8")


def render(name: str, **values: str) -> str:
    return Template(template_text(name)).substitute(**values).strip()


def template_hashes(*names: str) -> dict[str, str]:
    return {n: text_hash(template_text(n)) for n in names}
