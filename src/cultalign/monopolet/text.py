"""Danish sentence splitting (Punkt, offline), overlapping sentence chunks and
the prize segment at the end of an episode."""

from __future__ import annotations

import re
from functools import lru_cache

import pandas as pd


@lru_cache(maxsize=4)
def _punkt(language: str):
    import punkt

    return punkt.PunktSentenceTokenizer(punkt.load_model(language))


def split_sentences(text: str, language: str = "danish") -> list[str]:
    return [s.strip() for s in _punkt(language).tokenize(text) if s.strip()]


def sentence_table(segments: pd.DataFrame, language: str = "danish") -> pd.DataFrame:
    """One row per sentence, in order, with the speaker and time span of its segment.

    A sentence that runs over several transcript segments (speech recognition
    cuts at pauses, not at sentence ends) is split where the segments are: a
    segment is never merged with the next, so speaker labels stay exact.
    """
    rows = []
    for _, seg in segments.iterrows():
        text = str(seg.get("text", "") or "").strip()
        if not text or text == "nan":
            continue
        for s in split_sentences(text, language):
            rows.append({"sentence": len(rows), "text": s, "speaker": seg.get("speaker", "UNKNOWN"),
                         "start": seg["start"], "end": seg["end"]})
    return pd.DataFrame(rows, columns=["sentence", "text", "speaker", "start", "end"])


def make_chunks(sentences: pd.DataFrame, size: int, stride: int = 1) -> pd.DataFrame:
    """Overlapping windows of ``size`` sentences, moved by ``stride``."""
    n = len(sentences)
    rows = []
    starts = range(0, max(n - size, 0) + 1, stride) if n else []
    for k, s in enumerate(starts):
        e = min(s + size, n)
        rows.append({"chunk": k, "first_sentence": s, "last_sentence": e - 1,
                     "text": " ".join(sentences["text"].iloc[s:e])})
    return pd.DataFrame(rows, columns=["chunk", "first_sentence", "last_sentence", "text"])


def find_prize_start(sentences: pd.DataFrame, keywords: list[str], tail_fraction: float) -> int | None:
    """Index of the first sentence in the last ``tail_fraction`` of the transcript
    that contains a prize keyword (case-insensitive, word-prefix match), or None."""
    n = len(sentences)
    if n == 0 or not keywords:
        return None
    first_tail = int(n * (1 - tail_fraction))
    pat = re.compile(r"(?<!\w)(" + "|".join(re.escape(k.lower()) for k in keywords) + r")", re.IGNORECASE)
    for i in range(first_tail, n):
        if pat.search(sentences["text"].iloc[i].lower()):
            return i
    return None
