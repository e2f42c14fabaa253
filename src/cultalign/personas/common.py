"""Shared constants and helpers of the personas study: traits, seeds, prompt templates."""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

PROMPT_DIR = Path(__file__).parent / "prompts"

TRAITS = ("O", "C", "E", "A", "N")
TRAIT_NAMES = {"O": "Openness to Experience", "C": "Conscientiousness", "E": "Extraversion",
               "A": "Agreeableness", "N": "Neuroticism"}
TRAIT_HINTS = {
    "O": "curiosity, imagination, openness to new experiences",
    "C": "organisation, diligence, reliability",
    "E": "sociability, talkativeness, energy around people",
    "A": "kindness, cooperation, trust in others",
    "N": "worry, anxiety, emotional instability",
}
LEVELS = ("high", "moderately_high", "medium", "moderately_low", "low")
LEVEL_SCORES = (5, 4, 3, 2, 1)

_ALIASES = {"o": "O", "openness": "O", "openness to experience": "O", "c": "C", "conscientiousness": "C",
            "e": "E", "extraversion": "E", "extroversion": "E", "a": "A", "agreeableness": "A",
            "n": "N", "neuroticism": "N", "emotional stability": "N"}


def trait_code(value: str) -> str:
    """'Openness to Experience' / 'openness' / 'O' -> 'O'; raises on anything else."""
    key = str(value).strip().lower()
    if key not in _ALIASES:
        raise ValueError(f"unknown trait label {value!r}")
    return _ALIASES[key]


def derive_seed(*parts) -> int:
    """A stable 31-bit seed from the master seed and any labels (country, stage, index...)."""
    h = hashlib.sha256("|".join(str(p) for p in parts).encode()).hexdigest()
    return int(h[:8], 16) & 0x7FFFFFFF


@lru_cache(maxsize=None)
def template(name: str) -> str:
    return (PROMPT_DIR / f"{name}.txt").read_text(encoding="utf-8").strip()


def template_hashes(names) -> dict[str, str]:
    return {n: hashlib.sha256(template(n).encode()).hexdigest()[:16] for n in names}


def render(name: str, **kw) -> str:
    return template(name).format(**kw)
