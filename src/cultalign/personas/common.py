"""Shared constants of the personas study: traits, their names and answer levels."""

from __future__ import annotations

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

