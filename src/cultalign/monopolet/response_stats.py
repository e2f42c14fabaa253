"""Response statistics per model (Figure 7), normalised per word.

Offline method (no spaCy/NLTK models are installable here):
* words: Unicode word tokens (``\\w+`` with Danish letters, digits kept);
* numbers: tokens containing a digit, plus Danish numeral words
  (lexicons/numerals.txt; "en"/"et" excluded as they are also articles);
* question marks: count of "?";
* modal verbs, hedges, second-person pronouns: lexicon look-ups
  (lexicons/*.txt);
* person mentions: person nouns (lexicons/persons.txt) plus capitalised
  tokens that do not start a sentence (proper names), which stands in for
  the paper's spaCy PERSON entities.
Each count is divided by the answer's word count, then averaged over
dilemmas per model.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

import pandas as pd

LEX_DIR = Path(__file__).parent / "lexicons"
WORD_RE = re.compile(r"\w+(?:[-']\w+)*", re.UNICODE)
FEATURES = ["numbers", "question_marks", "modal_verbs", "hedges", "you_pronouns", "person_mentions"]


@lru_cache(maxsize=None)
def lexicon(name: str) -> frozenset[str]:
    lines = (LEX_DIR / f"{name}.txt").read_text(encoding="utf-8").splitlines()
    return frozenset(s.strip().lower() for s in lines if s.strip() and not s.startswith("#"))


def words(text: str) -> list[str]:
    return WORD_RE.findall(text)


def _proper_names(text: str) -> int:
    n = 0
    for sent in re.split(r"(?<=[.!?])\s+|\n+", text):
        toks = WORD_RE.findall(sent)
        for t in toks[1:]:
            if t[0].isupper() and not t.isupper() and t.lower() not in lexicon("persons"):
                n += 1
    return n


def count_features(text: str) -> dict[str, int]:
    toks = words(text)
    low = [t.lower() for t in toks]
    return {
        "n_words": len(toks),
        "numbers": sum(any(c.isdigit() for c in t) or t in lexicon("numerals") for t in low),
        "question_marks": text.count("?"),
        "modal_verbs": sum(t in lexicon("modal") for t in low),
        "hedges": sum(t in lexicon("hedges") for t in low),
        "you_pronouns": sum(t in lexicon("second_person") for t in low),
        "person_mentions": sum(t in lexicon("persons") for t in low) + _proper_names(text),
    }


def per_answer(answers: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for r in answers.itertuples():
        c = count_features(str(r.answer))
        n = max(c["n_words"], 1)
        rows.append({"model": r.model, "dilemma_id": r.dilemma_id, "n_words": c["n_words"],
                     **{f: c[f] / n for f in FEATURES}})
    return pd.DataFrame(rows, columns=["model", "dilemma_id", "n_words", *FEATURES])


def per_model(per_ans: pd.DataFrame) -> pd.DataFrame:
    g = per_ans.groupby("model")
    out = g[FEATURES].mean()
    out["n_answers"] = g.size()
    out["median_words"] = g["n_words"].median()
    out["mean_words"] = g["n_words"].mean()
    return out.reset_index()


def response_tables(answers: list[pd.DataFrame]) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, int]]:
    """The answer models' answers tables: (statistics per model, per valid answer, valid/invalid counts)."""
    answers = pd.concat(answers, ignore_index=True)
    valid = answers[answers["valid"].astype(bool)]
    pa = per_answer(valid)
    return per_model(pa), pa, {"valid": len(valid), "invalid": int(len(answers) - len(valid))}
