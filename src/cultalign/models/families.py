"""Provider families: the request rules a model inherits from its family, declared once.

A family says which sampling settings its provider refuses (left out of every
request), whether its models reason before they answer (hidden reasoning that
counts against the same token budget as the visible answer) and which
reasoning efforts it takes.  A ``models:`` entry names its family
(``models.<m>.family``); a model whose name, ``hub_id`` or ``api_model``
matches a family's pattern but names none fails when the workflow is parsed,
naming the key to set (``check_model_families``), so that a new entry for,
say, a GPT-5 model can neither send a temperature the provider rejects nor
run a reasoning model on an answer-sized budget.

How reasoning is controlled, by backend:

* ``openai``: the request parameter ``reasoning_effort`` (when
  ``models.<m>.reasoning_effort`` is set; else the provider's default), and
  ``max_completion_tokens`` = the study's visible budget + the model's
  ``reasoning_tokens`` reserve.  The provider reports the hidden reasoning in
  ``usage.completion_tokens_details.reasoning_tokens`` (recorded per request).
* ``vllm`` / ``transformers`` (open weights, e.g. gpt-oss): the chat-template
  variable ``reasoning_effort`` (gpt-oss's template writes it into the system
  message), and ``max_new_tokens`` = visible budget + ``reasoning_tokens``
  (the reasoning is generated text, the analysis channel, before the final
  answer).

The families are written from the providers' public documentation as this
project reads it; a provider rule missing here is not enforced.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .types import DROPPABLE_PARAMS


@dataclass(frozen=True)
class ProviderFamily:
    """What a provider does with the models of one family."""

    name: str
    pattern: str  # regex searched in the model's name, hub_id and api_model
    refuses: tuple[str, ...] = ()  # sampling settings refused (openai backend): left out of requests
    reasoning: bool = False  # reasons before it answers, within the same token budget
    efforts: tuple[str, ...] = ()  # values of reasoning_effort the family takes
    example_reserve: int = 0  # a reasoning_tokens reserve to suggest in the error of an entry without one

    def describe(self) -> str:
        parts = []
        if self.refuses:
            parts.append(f"refuses {', '.join(self.refuses)}")
        if self.reasoning:
            parts.append("reasons before it answers, within the token budget")
        return "; ".join(parts) or "no provider rules"


# GPT-5 (gpt-5, -mini, -nano, 5.1 ... 5.4 and their minis): only the default temperature and top_p;
# reasoning_effort none (5.1 and later), minimal (gpt-5), low, medium, high, xhigh (later models).
# o-series (o1, o3, o4-mini): the same sampling rule, reasoning_effort low/medium/high.
# gpt-oss (open weights): any sampling settings; the template's reasoning_effort low/medium/high.
# gemini (2.5 and later, through Google's OpenAI-compatible endpoint): thinks by default, the thinking
# counted in the output tokens; reasoning_effort none/minimal/low/medium/high.
FAMILIES: dict[str, ProviderFamily] = {
    f.name: f
    for f in (
        ProviderFamily("gpt-5", r"(^|/)gpt-5", refuses=("temperature", "top_p"), reasoning=True,
                       efforts=("none", "minimal", "low", "medium", "high", "xhigh"), example_reserve=4096),
        ProviderFamily("o-series", r"(^|/)o[1-9](-|$)", refuses=("temperature", "top_p"), reasoning=True,
                       efforts=("low", "medium", "high"), example_reserve=4096),
        ProviderFamily("gpt-oss", r"(^|/)gpt-oss", reasoning=True, efforts=("low", "medium", "high"),
                       example_reserve=2048),
        ProviderFamily("gemini", r"(^|/)gemini-(2\.5|[3-9])", reasoning=True,
                       efforts=("none", "minimal", "low", "medium", "high"), example_reserve=8192),
    )
}
assert all(set(f.refuses) <= set(DROPPABLE_PARAMS) for f in FAMILIES.values())


def model_ids(name: str, entry: dict[str, Any]) -> list[str]:
    """The names a model goes by: its key under ``models:``, ``hub_id`` and ``api_model``."""
    ids = [name, entry.get("hub_id"), entry.get("api_model")]
    return [str(i) for i in ids if i]


def matching_family(name: str, entry: dict[str, Any]) -> ProviderFamily | None:
    """The family whose pattern one of the model's names matches (None when none does)."""
    for fam in FAMILIES.values():
        if any(re.search(fam.pattern, i, re.IGNORECASE) for i in model_ids(name, entry)):
            return fam
    return None


def family_problems(name: str, entry: dict[str, Any]) -> list[str]:
    """What is wrong with the family settings of ``models.<name>`` (each naming the key and the fix)."""
    out = []
    key = f"models.{name}"
    fam_name = entry.get("family")
    effort = entry.get("reasoning_effort")
    reserve = int(entry.get("reasoning_tokens") or 0)
    if fam_name is None:
        found = matching_family(name, entry)
        if found is not None:
            out.append(f"{key}: the model ({', '.join(model_ids(name, entry))}) is of provider family "
                       f"{found.name!r} ({found.describe()}), but the entry names no family: set "
                       f"{key}.family: {found.name}"
                       + (f" and a reserve for its hidden reasoning, {key}.reasoning_tokens (e.g. "
                          f"{found.example_reserve})" if found.reasoning else ""))
        if effort is not None or reserve:
            out.append(f"{key}: reasoning_effort / reasoning_tokens apply to a model of a reasoning family; "
                       f"set {key}.family (known: {', '.join(FAMILIES)}) or remove them")
        return out
    fam = FAMILIES.get(fam_name)
    if fam is None:
        return [f"{key}.family: unknown provider family {fam_name!r}; known: {', '.join(FAMILIES)} "
                f"(cultalign.models.families), or null for a model without provider rules"]
    if fam.reasoning and reserve < 1:
        out.append(f"{key}.reasoning_tokens: family {fam.name!r} reasons before it answers and the reasoning "
                   f"counts against the token budget; set a reserve for it (e.g. {fam.example_reserve}), added "
                   f"to every request's visible budget, so that the visible answer fits")
    if not fam.reasoning and (effort is not None or reserve):
        out.append(f"{key}: family {fam.name!r} does not reason; remove reasoning_effort / reasoning_tokens")
    if effort is not None and fam.reasoning and effort not in fam.efforts:
        out.append(f"{key}.reasoning_effort: {effort!r} is not an effort of family {fam.name!r}; "
                   f"expected one of {list(fam.efforts)} or null (the provider's default)")
    return out


def reasoning_reserve(entry: dict[str, Any]) -> int:
    """Tokens a ``models:`` entry reserves for reasoning beside each visible budget (0 outside a reasoning family)."""
    fam = FAMILIES.get(entry.get("family") or "")
    return int(entry.get("reasoning_tokens") or 0) if fam is not None and fam.reasoning else 0


def check_model_families(config: dict[str, Any]) -> None:
    """Fail (``ConfigError`` listing every problem) when a model's family settings are missing or wrong."""
    from ..config import ConfigError

    problems = [p for name, entry in (config.get("models") or {}).items() for p in family_problems(name, entry or {})]
    if problems:
        raise ConfigError("provider family settings:\n  " + "\n  ".join(problems))
