"""What each model can do for option scoring, and the parse-time check of every rule that scores.

Strategies (``models.<m>.scoring``, ``types.SCORING``):

* ``full``: the log-probability of each whole option continuation of the
  rendered prompt (transformers, vllm, and the openai backend on a vLLM server,
  which returns prompt log-probs through its completions endpoint).
* ``first_token``: a hosted chat API gives no prompt log-probs, only the top-k
  (``top_logprobs`` <= 20) log-probs of each generated token.  The model
  answers greedily; at the first answer token after the options' shared prefix
  (``ScoreItem.labels``: ``"Answer: A"`` -> prefix ``"Answer: "``, label
  ``"A"``) each label's log-probability is read from the top-k (tokens equal to
  the label after stripping spaces add up).  Probabilities are renormalised
  over the labels; ``valid_mass`` is the mass the labels get; a label absent
  from the top-k gets ``-inf`` and is counted (``missing``); when no label is
  present (or the answer never reaches the prefix) the item's probabilities
  are NaN and the item is invalid.
* ``none``: the model cannot score options.

``scoring_of`` gives a model's strategy: its ``scoring`` key, else the
default of its backend.  ``check_scoring`` (called while the Snakefile is
parsed) walks ``SCORING_USES``, the rules that score options, and fails naming
model, rule and config key when a model is asked for what it cannot do.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

from .types import SCORING, OptionScores

MAX_TOP_LOGPROBS = 20  # OpenAI's limit on top_logprobs per token
# A label the first_token strategy can read: one short word (letters/digits), the parse-time
# stand-in for "one token" (a hosted tokenizer is not available when the workflow is parsed).
_LABEL = re.compile(r"^[A-Za-z0-9]{1,8}$")


def scoring_of(name: str, model: dict[str, Any]) -> str:
    """The scoring strategy of model ``name`` (its ``models:`` entry): ``scoring`` when set,
    else full for transformers / vllm; for openai full when ``extra.prompt_logprobs`` is true
    or when ``base_url`` and ``path`` (the local tokenizer full scoring needs) are set and
    ``extra.prompt_logprobs`` is not false (a vLLM server), else first_token (a hosted API)."""
    explicit = model.get("scoring")
    if explicit is not None:
        if explicit not in SCORING:
            raise ValueError(f"models.{name}.scoring: expected one of {SCORING}, got {explicit!r}")
        return explicit
    backend = model.get("backend", "transformers")
    if backend != "openai":
        return "full"
    pl = (model.get("extra") or {}).get("prompt_logprobs")
    if pl is True or (pl is None and model.get("base_url") and model.get("path")):
        return "full"
    return "first_token"


def label_problem(labels: Sequence[str] | None) -> str | None:
    """Why ``labels`` cannot be scored by first_token (None when they can)."""
    if labels is None:
        return "its options have no labels (whole option texts can only be scored in full)"
    bad = [lab for lab in labels if not _LABEL.match(lab)]
    if bad:
        return f"labels {bad} are not single short words (one token each)"
    if len({lab.lower() for lab in labels}) != len(labels):
        return f"labels {list(labels)} are not distinct"
    return None


def backend_problem(name: str, model: dict[str, Any], strategy: str) -> str | None:
    """Why the backend of model ``name`` cannot score with ``strategy`` (None when it can)."""
    backend = model.get("backend", "transformers")
    if strategy == "first_token" and backend != "openai":
        return (f"models.{name}.scoring is first_token, which only the openai backend does (backend is "
                f"{backend!r}; it scores full)")
    if strategy == "full" and backend == "openai" and not model.get("path"):
        return (f"full scoring through the openai backend needs a server with prompt log-probs (vLLM) and "
                f"the model's tokenizer in models.{name}.path, which is not set")
    return None


# -- first_token scoring ----------------------------------------------------------------
def first_token_scores(tokens: Sequence[tuple[str, Sequence[tuple[str, float]]]], labels: Sequence[str],
                       prefix: str = "") -> OptionScores:
    """Label log-probs from a greedy answer's per-token top-k.

    ``tokens``: the generated tokens in order, each ``(token, [(candidate, logprob), ...])``
    (its top-k).  The answer position is the first token after the generated text has
    reached ``prefix`` (ignoring spaces); with an empty prefix it is the first token.
    Returns ``OptionScores`` with ``strategy="first_token"``, one log-prob per label
    (-inf when absent from the top-k, counted in ``missing``) and token count 1 each."""
    pos = answer_position([t for t, _ in tokens], prefix)
    n = len(labels)
    if pos is None:
        return OptionScores([-math.inf] * n, [1] * n, strategy="first_token", missing=n)
    mass = [0.0] * n
    for cand, lp in tokens[pos][1]:
        c = cand.strip()
        for k, lab in enumerate(labels):
            if c == lab:
                mass[k] += math.exp(lp)
    lps = [math.log(m) if m > 0 else -math.inf for m in mass]
    return OptionScores(lps, [1] * n, strategy="first_token", missing=sum(m == 0 for m in mass))


def answer_position(tokens: Sequence[str], prefix: str) -> int | None:
    """Index of the first token after the tokens have spelled ``prefix`` (spaces ignored);
    None when the text departs from the prefix or the tokens end first."""
    want = "".join(prefix.split())
    if not want:
        return 0 if tokens else None
    got = ""
    for i, tok in enumerate(tokens):
        got += "".join(tok.split())
        if got == want:
            return i + 1 if i + 1 < len(tokens) else None
        if not want.startswith(got):
            return None
    return None


# -- the rules that score options (parse-time check) ----------------------------------------
@dataclass(frozen=True)
class ScoringUse:
    """One rule that scores options with a model: the rule, the config key that makes it
    score with that model, the model and the option labels it asks for (None: whole texts)."""

    rule: str
    key: str
    model: str
    labels: tuple[str, ...] | None


def _pact_uses(config: dict) -> Iterable[ScoringUse]:
    from cultalign.pact.behaviour import LOGPROB_LABELS

    pact = config.get("pact") or {}
    if not (pact.get("behaviour") or {}).get("logprob"):
        return
    for key in ("models", "comparison_models"):
        for i, m in enumerate(pact.get(key) or []):
            yield ScoringUse("pact_behaviour", f"pact.behaviour.logprob (model at pact.{key}[{i}])", m,
                             tuple(LOGPROB_LABELS))


def _personas_uses(config: dict) -> Iterable[ScoringUse]:
    from cultalign.personas.evaluate import LABELS, mcs_mode
    from cultalign.personas.generate import CHECK_LABELS

    pc = config.get("personas") or {}
    gen = pc.get("generator_model")
    if gen:
        for rule in ("personas_norms", "personas_scenarios", "personas_questions"):
            yield ScoringUse(rule, "personas.generator_model (self-checks)", gen, tuple(CHECK_LABELS))
    mcs = pc.get("mcs") or {}
    for i, m in enumerate(pc.get("models") or []):
        mode = mcs_mode(mcs, m)
        key = f"personas.mcs.score_by_model.{m}" if m in (mcs.get("score_by_model") or {}) else "personas.mcs.score"
        # MCS items have up to len(LABELS) options; label mode scores their letters
        labels = tuple(LABELS[:5]) if mode == "label" else None
        for rule in ("personas_mcs", "personas_release_mcs"):
            yield ScoringUse(rule, f"{key} = {mode!r} (model at personas.models[{i}])", m, labels)


def _monopolet_uses(config: dict) -> Iterable[ScoringUse]:
    from cultalign.monopolet.mapping import NO, YES

    mapping = (config.get("monopolet") or {}).get("mapping") or {}
    m = mapping.get("model")
    if m and mapping.get("check", "score") == "score":  # check generate scores nothing
        yield ScoringUse("monopolet_sections", "monopolet.mapping.model", m, (YES, NO))


SCORING_USES: dict[str, Callable[[dict], Iterable[ScoringUse]]] = {
    "pact": _pact_uses,
    "personas": _personas_uses,
    "monopolet": _monopolet_uses,
}


def scoring_uses(config: dict) -> list[ScoringUse]:
    """Every (rule, key, model, labels) of the configured studies that scores options."""
    return [u for study in config.get("studies") or [] if study in SCORING_USES
            for u in SCORING_USES[study](config)]


def check_scoring(config: dict) -> dict[str, str]:
    """Fail (ConfigError) naming model, rule and config key where a rule asks a model for option
    scoring it cannot do; return the strategy of every model that scores."""
    from cultalign.config import ConfigError

    models = config.get("models") or {}
    problems, used = [], {}
    if "personas" in (config.get("studies") or []):
        pc = config.get("personas") or {}
        for m in ((pc.get("mcs") or {}).get("score_by_model") or {}):
            if m not in (pc.get("models") or []):
                problems.append(f"config key 'personas.mcs.score_by_model.{m}': {m!r} is not one of "
                                f"personas.models {pc.get('models')}")
    for u in scoring_uses(config):
        if u.model not in models:
            continue  # check_model_refs names it
        strategy = scoring_of(u.model, models[u.model])
        used[u.model] = strategy
        why = backend_problem(u.model, models[u.model], strategy)
        if why is None and strategy == "none":
            why = f"it cannot score options (models.{u.model}.scoring: none)"
        elif why is None and strategy == "first_token" and label_problem(u.labels):
            why = (f"it scores by first-token log-probs (models.{u.model}.scoring: first_token) and "
                   f"{label_problem(u.labels)}")
        if why:
            problems.append(f"rule {u.rule}: model {u.model!r} is asked to score options by config key "
                            f"'{u.key}', but {why}")
    if problems:
        raise ConfigError("option scoring the model cannot do:\n  " + "\n  ".join(dict.fromkeys(problems)))
    return used
