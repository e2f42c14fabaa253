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

``resolve_scoring`` gives a model's strategy (its ``scoring`` key, else the
default by backend that the schema states for ``models.<m>.scoring``); it is
called once per model, when its ``ModelSpec`` is made, and everything else
reads ``ModelSpec.scoring_strategy``.  ``cultalign.scoring_check.check_scoring``
(called while the Snakefile is parsed) fails naming model, rule and config key
when a rule asks a model for what it cannot do.
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Sequence

from .types import SCORING, OptionScores

if TYPE_CHECKING:
    from .types import ModelSpec

MAX_TOP_LOGPROBS = 20  # OpenAI's limit on top_logprobs per token
# A label the first_token strategy can read: one short word (letters/digits), the parse-time
# stand-in for "one token" (a hosted tokenizer is not available when the workflow is parsed).
_LABEL = re.compile(r"^[A-Za-z0-9]{1,8}$")


def resolve_scoring(spec: "ModelSpec") -> str:
    """The scoring strategy of a model (``ModelSpec.__post_init__``; read it as
    ``spec.scoring_strategy``): ``scoring`` when set, else full for transformers / vllm; for
    openai full when ``prompt_logprobs`` is true or when ``base_url`` and ``path`` (the local
    tokenizer full scoring needs) are set and ``prompt_logprobs`` is not false (a vLLM
    server), else first_token (a hosted API)."""
    if spec.scoring is not None:
        if spec.scoring not in SCORING:
            raise ValueError(f"models.{spec.name}.scoring: expected one of {SCORING}, got {spec.scoring!r}")
        return spec.scoring
    if spec.backend != "openai":
        return "full"
    pl = spec.prompt_logprobs
    if pl is True or (pl is None and spec.base_url and spec.path):
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


def backend_problem(spec: "ModelSpec") -> str | None:
    """Why the backend of a model cannot score with its strategy (None when it can)."""
    name, backend, strategy = spec.name, spec.backend, spec.scoring_strategy
    if strategy == "first_token" and backend != "openai":
        return (f"models.{name}.scoring is first_token, which only the openai backend does (backend is "
                f"{backend!r}; it scores full)")
    if strategy == "full" and backend == "openai" and not spec.path:
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
