"""PACT prompt templates: ``prompts/<name>.txt`` with ``$name`` placeholders, and their hashes."""

from __future__ import annotations

from pathlib import Path

from ..core.prompts import PromptSet

PROMPTS = PromptSet(Path(__file__).parent / "prompts")


def render(name: str, **values) -> str:
    """The user prompt ``name`` with its values.

    A PACT user prompt ends with one newline (the last line end of its template
    file has always been part of the prompt; request-cache keys and greedy
    outputs depend on it), so it is added back after ``PromptSet.render``."""
    return PROMPTS.render(name, **values) + "\n"


def system_prompt(name: str) -> str:
    """The system prompt ``system_<name>`` (no placeholders, no final newline)."""
    return PROMPTS.text(f"system_{name}")


def template_hashes(*names: str) -> dict[str, str]:
    return PROMPTS.hashes(*names)
