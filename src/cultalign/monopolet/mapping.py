"""Map each one-sentence dilemma summary to the transcript chunk that
introduces it, then cut the transcript into one section per dilemma.

1. Chunks inside the prize segment are excluded.
2. Embedding similarity (summary as query, chunk as passage) proposes the
   most similar chunk.
3. An LLM re-checks it: ``check: score`` takes P("Ja") of the yes/no question
   by option scoring; ``check: generate`` lets the model answer in its own
   chat format (a reasoning model such as gpt-oss thinks in its analysis
   channel first) and reads Ja / Nej from the final answer (P = 1 / 0; an
   answer with neither, e.g. reasoning cut off by ``max_new_tokens``, is
   retried, then counts as not confirmed).
4. For summaries not confirmed, the LLM checks every chunk and the earliest
   confirmed chunk is taken; if none is confirmed, ``fallback`` decides
   (``embedding``: keep the embedding proposal, flagged; ``drop``: unmapped).
5. Sections run from a dilemma's chunk to the next dilemma's chunk (or the
   prize segment / the end).  Dilemmas mapped to the same place as an earlier
   one get no section (status ``collision``), counted and excluded.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, fields

import numpy as np
import pandas as pd

from ..models import ChatRequest, SamplingParams, ScoreItem
from .prompts import render
from .text import find_prize_start, make_chunks, sentence_table

log = logging.getLogger(__name__)
YES, NO = "Ja", "Nej"


@dataclass
class MappingSettings:
    """Config ``monopolet.mapping`` without the model (the rule's ``llm``)."""

    yes_threshold: float
    fallback: str  # embedding | drop
    check: str = "score"  # score | generate
    max_new_tokens: int = 1024  # check: generate (the visible answer; a reasoning model's reserve is added)
    temperature: float = 0.0  # check: generate

    @classmethod
    def from_config(cls, section) -> "MappingSettings":
        """From a mapping (the config section, or a rule's params) holding every field."""
        s = cls(**{f.name: section[f.name] for f in fields(cls)})
        if s.check not in CHECKS:
            raise ValueError(f"monopolet.mapping.check: expected one of {CHECKS}, got {s.check!r}")
        return s


CHECKS = ("score", "generate")
# the final answer of a harmony-format (gpt-oss) output: raw special tokens, or their names left
# when the tokens are skipped in decoding ("analysis...assistantfinalJa")
_FINAL = (re.compile(r"<\|channel\|>\s*final\s*<\|message\|>(.*?)(?:<\|(?:return|end)\|>|$)", re.S),
          re.compile(r"assistantfinal(.*)$", re.S))
_ANALYSIS = re.compile(r"^\s*(?:<\|channel\|>\s*)?analysis", re.S)
_WORD = re.compile(r"[^\W\d_]+")


def final_answer(text: str) -> str:
    """The final answer of a model output: the final channel of a harmony-format output (a
    reasoning model's analysis is never read as the answer), else the whole text."""
    for pat in _FINAL:
        hits = pat.findall(text)
        if hits:
            return hits[-1].strip()
    if _ANALYSIS.match(text):
        raise ValueError("output has reasoning (analysis channel) but no final answer (cut short?)")
    return text.strip()


def parse_yes_no(text: str) -> bool:
    """Ja -> True, Nej -> False: the first word of the final answer (Danish or English)."""
    words = _WORD.findall(final_answer(text).casefold())
    if not words:
        raise ValueError("empty final answer")
    if words[0] in ("ja", "yes"):
        return True
    if words[0] in ("nej", "no"):
        return False
    raise ValueError(f"final answer does not start with Ja or Nej: {final_answer(text)[:60]!r}")


def _p_yes(client, summary: str, chunks: list[str], settings: MappingSettings) -> list[float]:
    prompts = [render("check_intro", summary=summary, chunk=c) for c in chunks]
    if not prompts:
        return []
    if settings.check == "generate":
        params = SamplingParams(temperature=settings.temperature, max_new_tokens=settings.max_new_tokens)
        res = client.generate_parsed([ChatRequest.make(p, params) for p in prompts], parse_yes_no)
        return [(1.0 if r.value else 0.0) if r.valid else float("nan") for r in res]
    items = [ScoreItem.make(p, [YES, NO], labels=[YES, NO]) for p in prompts]
    return [s.probs[0] for s in client.score_options(items)]


def map_summaries(summaries: pd.DataFrame, chunks: pd.DataFrame, prize_start: int | None, embedder, client,
                  settings: MappingSettings) -> pd.DataFrame:
    cand = chunks if prize_start is None else chunks[chunks["last_sentence"] < prize_start]
    cand = cand.reset_index(drop=True)
    cols = ["dilemma_id", "summary", "chunk", "first_sentence", "similarity", "p_yes", "method", "llm_checks",
            "proposed_chunk"]
    if cand.empty or summaries.empty:
        return pd.DataFrame([{"dilemma_id": d, "summary": s, "chunk": -1, "first_sentence": -1,
                              "similarity": np.nan, "p_yes": np.nan, "method": "unmapped", "llm_checks": 0,
                              "proposed_chunk": -1}
                             for d, s in zip(summaries.get("dilemma_id", []), summaries.get("summary", []))],
                            columns=cols)
    q = embedder.queries(summaries["summary"].tolist())
    p = embedder.passages(cand["text"].tolist())
    sims = q @ p.T
    best = sims.argmax(axis=1)
    first_pass = [_p_yes(client, s, [cand["text"].iloc[b]], settings)[0] for s, b in zip(summaries["summary"], best)]
    rows = []
    for i, (did, summary) in enumerate(zip(summaries["dilemma_id"], summaries["summary"])):
        b = int(best[i])
        row = {"dilemma_id": did, "summary": summary, "chunk": int(cand["chunk"].iloc[b]),
               "first_sentence": int(cand["first_sentence"].iloc[b]), "similarity": float(sims[i, b]),
               "p_yes": float(first_pass[i]), "method": "embedding+llm", "llm_checks": 1,
               "proposed_chunk": int(cand["chunk"].iloc[b])}
        if not first_pass[i] >= settings.yes_threshold:  # NaN (no label / no final answer): unconfirmed
            py = _p_yes(client, summary, cand["text"].tolist(), settings)
            row["llm_checks"] += len(py)
            hits = [k for k, v in enumerate(py) if v >= settings.yes_threshold]
            if hits:
                k = hits[0]
                row.update(chunk=int(cand["chunk"].iloc[k]), first_sentence=int(cand["first_sentence"].iloc[k]),
                           similarity=float(sims[i, k]), p_yes=float(py[k]), method="llm_earliest")
            elif settings.fallback == "embedding":
                row["method"] = "embedding_unconfirmed"
            else:
                row.update(chunk=-1, first_sentence=-1, method="unmapped")
        rows.append(row)
    return pd.DataFrame(rows, columns=cols)


def cut_sections(mapping: pd.DataFrame, sentences: pd.DataFrame, prize_start: int | None,
                 episode_id: str) -> pd.DataFrame:
    """One section per mapped dilemma (text with speaker labels), in transcript order.  ``chunk``:
    the chunk the mapping chose (-1: unmapped); ``proposed_chunk``: the embedding's proposal
    (both shown to the annotators of appendix A.1, ``annotation_samples.mapping_sample``)."""
    end_all = prize_start if prize_start is not None else len(sentences)
    m = mapping.copy()
    m["status"] = np.where(m["first_sentence"] >= 0, "ok", "unmapped")
    ok = m[m["status"] == "ok"].sort_values(["first_sentence", "dilemma_id"])
    starts = ok["first_sentence"].tolist()
    seen = set()
    bounds = {}
    for k, (did, s) in enumerate(zip(ok["dilemma_id"], starts)):
        if s in seen:
            bounds[did] = None
            continue
        seen.add(s)
        later = [x for x in starts[k + 1:] if x > s]
        bounds[did] = (s, min(later[0] if later else end_all, end_all))
    rows = []
    for _, r in m.iterrows():
        b = bounds.get(r["dilemma_id"])
        status = r["status"]
        if status == "ok" and (b is None or b[1] <= b[0]):
            status = "collision"
        text, first, last, n_words, speakers = "", -1, -1, 0, 0
        if status == "ok":
            sub = sentences.iloc[b[0]:b[1]]
            text = "\n".join(f"{sp}: {t}" for sp, t in zip(sub["speaker"], sub["text"]))
            first, last = b[0], b[1] - 1
            n_words = int(sum(len(t.split()) for t in sub["text"]))
            speakers = int(sub["speaker"].nunique())
        rows.append({"dilemma_id": r["dilemma_id"], "episode_id": episode_id, "summary": r["summary"],
                     "method": r["method"], "similarity": r["similarity"], "p_yes": r["p_yes"],
                     "chunk": int(r.get("chunk", -1)), "proposed_chunk": int(r.get("proposed_chunk", -1)),
                     "first_sentence": first, "last_sentence": last, "n_words": n_words,
                     "n_speakers": speakers, "status": status, "section": text})
    return pd.DataFrame(rows)


def episode_sections(transcript: pd.DataFrame, summaries: pd.DataFrame, episode_id: str, embedder, client,
                     settings: MappingSettings, chunk_sentences: int, prize_keywords: list[str],
                     prize_tail_fraction: float) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, int]]:
    """Sections of one episode from its speaker-labelled transcript and the manifest's summaries
    (all episodes'; this episode's are taken): (sections, chunks, counts)."""
    transcript = transcript.assign(text=transcript["text"].fillna(""))
    summaries = summaries[summaries["episode_id"] == episode_id]
    sentences = sentence_table(transcript)
    chunks = make_chunks(sentences, size=chunk_sentences, stride=1)
    prize = find_prize_start(sentences, list(prize_keywords), prize_tail_fraction)
    mapping = map_summaries(summaries, chunks, prize, embedder, client, settings)
    sections = cut_sections(mapping, sentences, prize, episode_id)
    sections["valid"] = sections["status"] == "ok"
    # how the LLM check decided Ja/Nej: generated answer, or the scoring strategy (models.<m>.scoring)
    sections["scoring"] = "generate" if settings.check == "generate" else client.scoring
    chunks["in_prize_segment"] = chunks["last_sentence"] >= (prize if prize is not None else len(sentences))
    counts = {"sentences": len(sentences), "chunks": len(chunks), "prize_found": int(prize is not None),
              "valid": int(sections["valid"].sum()), "invalid": int((~sections["valid"]).sum())}
    counts.update({f"method_{k}": int(v) for k, v in sections["method"].value_counts().items()})
    counts.update({f"status_{k}": int(v) for k, v in sections["status"].value_counts().items()})
    return sections, chunks, counts
