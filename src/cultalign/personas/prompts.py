"""The prompt templates of the personas study (``prompts/<name>.txt``, ``$name`` placeholders)."""

from __future__ import annotations

from pathlib import Path

from cultalign.core.prompts import PromptSet

PROMPTS = PromptSet(Path(__file__).parent / "prompts")
