"""Prompt templates: versioned text files beside a study's code, one placeholder syntax, one hash.

Placeholders are ``$name`` (``string.Template``), so JSON examples and braces
in a prompt need no escaping; a literal dollar sign is ``$$``.  Rendering is
strict: a missing value raises ``KeyError`` naming the placeholder.
``hashes`` goes into provenance sidecars.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from string import Template

from .provenance import text_hash


class PromptSet:
    """The templates ``<folder>/<name>.txt`` of one study."""

    def __init__(self, folder: str | Path):
        self.folder = Path(folder)

    @lru_cache(maxsize=None)  # noqa: B019 - one PromptSet per study, alive for the process
    def text(self, name: str) -> str:
        """The template as written (surrounding whitespace removed)."""
        path = self.folder / f"{name}.txt"
        if not path.is_file():
            raise FileNotFoundError(f"prompt template {path} does not exist")
        return path.read_text(encoding="utf-8").strip()

    def render(self, name: str, **values) -> str:
        try:
            return Template(self.text(name)).substitute(**values)
        except KeyError as e:
            raise KeyError(f"prompt template {name!r}: no value for placeholder ${e.args[0]}") from None

    def hashes(self, *names: str) -> dict[str, str]:
        """``{name: hash}`` of the templates (recorded in provenance)."""
        return {n: text_hash(self.text(n)) for n in names}

    def names(self) -> list[str]:
        return sorted(p.stem for p in self.folder.glob("*.txt"))
