"""Shared constants of the personas study (traits, their names and answer levels) and the sentence
splitting and type-token ratio of OEG answers (light: the table scripts import them without the model layer)."""

from __future__ import annotations

import math
import re

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


# A sentence ends at . ! or ? (optionally followed by closing quotes/brackets) before whitespace or
# the end of the text; common abbreviations and single initials do not end a sentence.
_SENT_END = re.compile(r"[.!?]+[\"'\u201d\u2019)\]]*(?=\s|$)")
_ABBREV = re.compile(r"(?:\b(?:mr|mrs|ms|dr|prof|sr|jr|st|vs|etc|e\.g|i\.e|approx|no)\.|\b[A-Za-z]\.)$", re.I)


def split_sentences(text: str) -> tuple[list[str], str]:
    """(complete sentences, unfinished remainder) of whitespace-normalised ``text``."""
    t = " ".join(str(text).split())
    sents, start = [], 0
    for m in _SENT_END.finditer(t):
        if _ABBREV.search(t[start : m.end()]) and m.end() < len(t):
            continue
        sents.append(t[start : m.end()].strip())
        start = m.end()
    return [x for x in sents if x], t[start:].strip()


def type_token_ratio(text: str) -> float:
    toks = re.findall(r"[a-z']+", str(text).lower())
    return len(set(toks)) / len(toks) if toks else math.nan


def ttr_of_sentences(text: str, n: int) -> float:
    """Type-token ratio of the first ``n`` complete sentences of ``text`` (paper section 5.2: TTR over
    uniform-length, one-sentence responses); NaN when the text has fewer than ``n`` complete sentences."""
    if n < 1:
        raise ValueError(f"TTR needs at least one sentence per response (config key personas.ttr_sentences), got {n}")
    sents, _ = split_sentences(text)
    return type_token_ratio(" ".join(sents[:n])) if len(sents) >= n else math.nan
