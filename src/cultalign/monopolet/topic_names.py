"""Human-readable topic names (appendix B: keyphrases from noun phrases, then
gpt-5-mini names each topic).  The naming model (config
``monopolet.topics.naming.model``) gets a topic's keyphrases and its
CountVectorizer words (``topics.dilemma_topics``) and answers with a short
English name (JSON schema ``{"name": ...}``, constrained where the backend can,
validated always).  An output that does not parse is retried, then kept with
``valid=False``: the topic is then shown by its term name (``term_name``,
e.g. ``0_nabo_hund_musik``), and the table says so.  The term lists stay
beside the names."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

import pandas as pd

from ..models import ChatRequest, SamplingParams
from .prompts import PROMPTS, render

COLUMNS = ["topic", "name", "term_name", "keyphrases", "top_terms", "valid", "attempts", "raw"]


@dataclass(frozen=True)
class NamingSettings:
    """Config ``monopolet.topics.naming`` without the model (the rule's ``llm``)."""

    max_new_tokens: int
    temperature: float
    max_name_chars: int

    @classmethod
    def from_config(cls, section) -> "NamingSettings":
        """From a mapping (the config section, or a rule's params) holding every field."""
        return cls(**{f.name: section[f.name] for f in fields(cls)})

    def sampling(self, seed: int) -> SamplingParams:
        return SamplingParams.from_config(asdict(self), seed)


def name_schema(s: NamingSettings) -> dict:
    return {"type": "object", "additionalProperties": False, "required": ["name"],
            "properties": {"name": {"type": "string", "minLength": 2, "maxLength": s.max_name_chars}}}


def naming_request(keyphrases: str, terms: str, params: SamplingParams) -> ChatRequest:
    return ChatRequest.make(render("name_topic", keyphrases=keyphrases or "(none)", terms=terms or "(none)"),
                            params)


def name_topics(client, topics: pd.DataFrame, s: NamingSettings, seed: int,
                max_attempts: int | None = None) -> tuple[pd.DataFrame, dict[str, int]]:
    """One name per topic of ``topics`` (topic, name, top_terms, keyphrases: the table of rule
    monopolet_topics; its ``name`` becomes ``term_name``).  Returns the table and the counts."""
    t = topics.reset_index(drop=True)
    keyphrases = t["keyphrases"].fillna("").astype(str) if "keyphrases" in t else pd.Series([""] * len(t))
    terms = t["top_terms"].fillna("").astype(str)
    params = s.sampling(seed)
    reqs = [naming_request(k, w, params) for k, w in zip(keyphrases, terms)]
    res = client.generate_json(reqs, name_schema(s), max_attempts=max_attempts) if reqs else []
    out = pd.DataFrame({"topic": t["topic"], "term_name": t["name"], "keyphrases": keyphrases, "top_terms": terms})
    # a name that is only blanks does not count: the term name stands in, flagged invalid
    ok = [r.valid and bool(r.value["name"].strip()) for r in res]
    out["valid"] = pd.Series(ok, index=out.index, dtype=bool)
    out["name"] = [r.value["name"].strip() if v else tn for r, v, tn in zip(res, ok, out["term_name"])]
    out["attempts"] = [r.n_attempts for r in res]
    out["raw"] = [r.raw for r in res]
    counts = {"topics": len(out), "valid": int(out["valid"].sum()), "invalid": int((~out["valid"].astype(bool)).sum())}
    return out[COLUMNS], counts


def prompt_hashes() -> dict[str, str]:
    return PROMPTS.hashes("name_topic")
