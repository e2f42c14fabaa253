"""Prompt templates of the study: ``prompts/<name>.txt`` beside this module
(``$name`` placeholders, :class:`cultalign.core.prompts.PromptSet`), and the
judge's worked examples (``prompts/judge_match_examples.json``)."""

from __future__ import annotations

from pathlib import Path

from ..core.prompts import PromptSet

PROMPT_DIR = Path(__file__).parent / "prompts"
PROMPTS = PromptSet(PROMPT_DIR)


def render(name: str, **values: str) -> str:
    """``PROMPTS.render``, with surrounding whitespace removed after substitution too.

    Two templates begin or end with a placeholder (``ask_advice`` with
    ``$dilemma``, ``judge_match`` with ``$reference``): a value with leading or
    trailing whitespace there renders without it, as the study's prompts always
    have, so request-cache keys and greedy outputs stay what they were."""
    return PROMPTS.render(name, **values).strip()
