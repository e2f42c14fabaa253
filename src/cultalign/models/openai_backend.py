"""OpenAI-compatible backend: a `vllm serve` endpoint, or a hosted API.

* generation: ``chat.completions`` with the request's messages (the server
  applies its chat template), temperature / top_p / ``max_completion_tokens``
  / stop / seed, and structured output through ``response_format`` of type
  ``json_schema`` (the same schema text the other backends use);
  ``strict`` is set only when the schema meets OpenAI's strict-mode rules
  (every object closed with ``additionalProperties: false`` and all its
  properties required), since a hosted API rejects a strict non-conforming
  schema.  Requests of a batch run concurrently in a small thread pool
  (``spec.batch_size`` workers).
* retries: rate limits (429), timeouts/connection errors, 408/409 and 5xx are
  retried a bounded number of times with exponential backoff and jitter
  (``Retry-After`` honoured); other errors are raised at once.
* parameters the model does not accept (``spec.refused_params``: its
  ``unsupported_params`` and its provider family's, e.g. temperature and top_p
  for the GPT-5 family) are left out of every request; the client keys and
  records the settings actually sent.  A reasoning-family model
  (``cultalign.models.families``) gets ``reasoning_effort`` where set and a
  ``max_completion_tokens`` of the visible budget plus its reasoning reserve;
  the hidden reasoning tokens the provider reports are recorded per request.
* option scoring, strategy ``first_token`` (a hosted API;
  ``capabilities``): a greedy chat completion with ``logprobs=True`` and
  ``top_logprobs`` (``models.<m>.top_logprobs``, at most 20), within
  ``models.<m>.first_token_max_tokens`` tokens, the labels read from
  the top-k of the first answer token after the options' prefix
  (``score_first_token``).
* option scoring, strategy ``full``, needs the log-probabilities of prompt
  tokens, which a chat endpoint does not give.  A vLLM server gives them through the legacy
  completions endpoint (``echo=True, logprobs=0``).  The prompt is rendered
  locally with the model's chat template (``spec.path`` holds the tokenizer:
  ``render_for_scoring``) and sent as token ids, so the option boundary is
  computed on exactly the tokens scored (longest common token prefix, as in
  the other backends).  ``ModelClient.score_options`` hands this backend the
  messages as the canonical JSON its ``render`` makes for ``openai`` (that
  text is the cache key); ``score`` decodes it, so the client needs no
  special case.  Endpoints that cannot do this raise
  ``NotImplementedError`` naming the model and endpoint.

The API key is read from the environment variable named by
``spec.api_key_env``; it is never logged, cached, or put in an exception.

The request settings are keys of the model's entry (``models.<m>``, described
with their defaults in ``config/schema/core.yaml``): ``api_model`` (the name the
server knows the model by: ``ModelSpec.served_model``), ``max_retries``,
``request_timeout``, ``backoff_base``, ``backoff_cap``, ``top_logprobs``,
``first_token_max_tokens`` and ``prompt_logprobs`` (``false`` for an endpoint
known to lack prompt log-probs: scoring then fails fast).  ``extra`` is not
read here (it holds vLLM engine arguments).
"""

from __future__ import annotations

import json
import logging
import os
import random
import re
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Mapping, Sequence

from .capabilities import MAX_TOP_LOGPROBS, first_token_scores
from .types import Generation, ModelSpec, OptionScores, SamplingParams

log = logging.getLogger(__name__)

RETRYABLE_STATUS = frozenset({408, 409, 429})
NO_KEY = "EMPTY"  # what a keyless local server (vllm serve without --api-key) accepts


# -- pure helpers (unit-tested with fakes) -------------------------------------
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")  # same as the schema pattern of api_key_env


def resolve_api_key(spec: ModelSpec, environ: Mapping[str, str] = os.environ) -> str:
    """The key from the env var ``spec.api_key_env``; ``"EMPTY"`` when no variable is configured.

    A configured but unset variable is a configuration error (named, value never shown).
    """
    if not spec.api_key_env:
        return NO_KEY
    if not ENV_NAME.fullmatch(spec.api_key_env):
        # probably the key itself pasted in place of a variable name: never echo it
        raise RuntimeError(
            f"models.{spec.name}.api_key_env must be the NAME of an environment variable "
            f"(letters, digits, underscores); the value given is not one and is not shown"
        )
    key = environ.get(spec.api_key_env)
    if not key:
        raise RuntimeError(
            f"models.{spec.name}.api_key_env names environment variable {spec.api_key_env!r}, "
            f"which is not set (or empty)"
        )
    return key


def strict_compatible(schema: Any) -> bool:
    """True when a JSON schema meets OpenAI's strict structured-output rules."""
    if isinstance(schema, dict):
        if schema.get("type") == "object" or "properties" in schema:
            props = schema.get("properties", {})
            if schema.get("additionalProperties", True) is not False:
                return False
            if set(schema.get("required", [])) != set(props):
                return False
        return all(strict_compatible(v) for k, v in schema.items() if k not in ("enum", "const", "default"))
    if isinstance(schema, list):
        return all(strict_compatible(v) for v in schema)
    return True


def chat_request(model: str, messages: list[dict], params: SamplingParams, schema: str | None,
                 unsupported: Sequence[str] = (), reasoning_effort: str | None = None) -> dict[str, Any]:
    """Keyword arguments of one ``chat.completions.create`` call, without the settings the
    model does not accept (``unsupported``: ``ModelSpec.refused_params``), with
    ``reasoning_effort`` when given (a reasoning-family model's ``models.<m>.reasoning_effort``).
    ``params.max_new_tokens`` is the whole budget (``ModelSpec.request_params``: the visible
    budget plus the model's reasoning reserve)."""
    kw: dict[str, Any] = {
        "model": model,
        "messages": messages,
        "temperature": params.temperature,
        "top_p": params.top_p if params.temperature > 0 else 1.0,
        "max_completion_tokens": params.max_new_tokens,
        "seed": params.seed,
    }
    if params.stop:
        kw["stop"] = list(params.stop)
    for k in unsupported:
        kw.pop(k, None)
    if reasoning_effort is not None:
        kw["reasoning_effort"] = reasoning_effort
    if schema is not None:
        obj = json.loads(schema)
        kw["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": "response", "schema": obj, "strict": strict_compatible(obj)},
        }
    return kw


def reported_reasoning_tokens(usage: Any) -> int | None:
    """Hidden reasoning tokens of a response (``usage.completion_tokens_details.reasoning_tokens``),
    None where the provider reports none."""
    details = getattr(usage, "completion_tokens_details", None) if usage is not None else None
    if isinstance(details, dict):
        n = details.get("reasoning_tokens")
    else:
        n = getattr(details, "reasoning_tokens", None)
    return int(n) if n is not None else None


def is_retryable(exc: BaseException) -> bool:
    import openai

    if isinstance(exc, openai.APIConnectionError):  # includes APITimeoutError
        return True
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in RETRYABLE_STATUS or exc.status_code >= 500
    return False


def retry_after(exc: BaseException) -> float | None:
    """Seconds the server asked us to wait (``retry-after-ms`` / ``retry-after``), if any."""
    resp = getattr(exc, "response", None)
    headers = getattr(resp, "headers", None) or {}
    for name, scale in (("retry-after-ms", 1e-3), ("retry-after", 1.0)):
        v = headers.get(name)
        if v is not None:
            try:
                return max(0.0, float(v) * scale)
            except ValueError:
                continue  # an HTTP date: fall back to our own backoff
    return None


def backoff_delay(attempt: int, base: float = 1.0, cap: float = 30.0, server_wait: float | None = None,
                  rng: Callable[[], float] = random.random) -> float:
    """Wait before retry number ``attempt`` (0-based): the server's ``Retry-After`` if
    given, else ``base * 2**attempt`` with jitter in [50%, 100%]; never above ``cap``."""
    if server_wait is not None:
        return min(cap, server_wait)
    return min(cap, base * (2 ** attempt)) * (0.5 + 0.5 * rng())


def call_with_retries(fn: Callable[[], Any], max_retries: int = 5, base: float = 1.0, cap: float = 30.0,
                      sleep: Callable[[float], None] = time.sleep, what: str = "request") -> Any:
    """``fn()``, retried up to ``max_retries`` times on retryable errors."""
    for attempt in range(max_retries + 1):
        try:
            return fn()
        except Exception as exc:  # noqa: BLE001 - classified below
            if attempt >= max_retries or not is_retryable(exc):
                raise
            delay = backoff_delay(attempt, base, cap, retry_after(exc))
            status = getattr(exc, "status_code", None)
            log.warning("%s failed (%s%s); retry %d/%d in %.1f s", what, type(exc).__name__,
                        f" {status}" if status else "", attempt + 1, max_retries, delay)
            sleep(delay)
    raise AssertionError("unreachable")


def option_boundary(prompt_ids: Sequence[int], full_ids: Sequence[int]) -> int:
    """First option token in ``full_ids``: after the longest common prefix with the prompt's tokens."""
    k = 0
    n = min(len(prompt_ids), len(full_ids))
    while k < n and prompt_ids[k] == full_ids[k]:
        k += 1
    return max(1, min(k, len(full_ids) - 1))


def parse_messages(rendered: str) -> list[dict]:
    """The messages ``ModelClient.render`` encodes as canonical JSON for this backend."""
    try:
        msgs = json.loads(rendered)
    except json.JSONDecodeError as e:
        raise ValueError(f"openai backend expects the client's JSON-encoded messages, got text ({e})") from None
    if not (isinstance(msgs, list) and all(isinstance(m, dict) and {"role", "content"} <= set(m) for m in msgs)):
        raise ValueError("openai backend expects a JSON list of {role, content} messages")
    return msgs


class OpenAIBackend:
    def __init__(self, spec: ModelSpec, http_client: Any | None = None, environ: Mapping[str, str] = os.environ):
        import openai

        self.spec = spec
        self.model = spec.served_model
        self.max_retries = int(spec.max_retries)
        self.backoff_base = float(spec.backoff_base)
        self.backoff_cap = float(spec.backoff_cap)
        self._tokenizer = None
        self.unsupported = tuple(spec.refused_params)
        self.reasoning_effort = spec.reasoning_effort if spec.reasons else None
        self.top_logprobs = int(spec.top_logprobs)
        if not 1 <= self.top_logprobs <= MAX_TOP_LOGPROBS:
            raise ValueError(f"models.{spec.name}.top_logprobs: 1..{MAX_TOP_LOGPROBS}, got {self.top_logprobs}")
        # openai's own retries are off: ours are bounded, logged and tested
        self.client = openai.OpenAI(
            base_url=spec.base_url,
            api_key=resolve_api_key(spec, environ),
            max_retries=0,
            timeout=float(spec.request_timeout),
            http_client=http_client,
        )
        log.info("openai backend: model %s at %s (key from %s)", self.model, spec.base_url or "default endpoint",
                 f"${spec.api_key_env}" if spec.api_key_env else "none")

    def __repr__(self) -> str:  # never shows the client (which holds the key)
        return f"OpenAIBackend(model={self.model!r}, base_url={self.spec.base_url!r})"

    @property
    def tokenizer(self):
        """The model's tokenizer from ``spec.path`` (for scoring), or None without a local folder."""
        if self._tokenizer is None and self.spec.path:
            from transformers import AutoTokenizer

            self._tokenizer = AutoTokenizer.from_pretrained(self.spec.path)
        return self._tokenizer

    def _retry(self, fn: Callable[[], Any], what: str) -> Any:
        return call_with_retries(fn, self.max_retries, self.backoff_base, self.backoff_cap, what=what)

    def _map(self, fn: Callable[[Any], Any], xs: Sequence[Any]) -> list[Any]:
        workers = max(1, min(self.spec.batch_size, len(xs)))
        if workers == 1:
            return [fn(x) for x in xs]
        with ThreadPoolExecutor(max_workers=workers) as pool:
            return list(pool.map(fn, xs))

    # -- generation ------------------------------------------------------------
    def generate(self, prompts: Sequence[str], params: SamplingParams, schema: str | None = None,
                 messages: Sequence[list[dict]] | None = None,
                 seeds: Sequence[int] | None = None) -> list[Generation]:
        if messages is None:
            messages = [parse_messages(p) for p in prompts]
        seeds = list(seeds) if seeds is not None else [params.seed] * len(messages)

        def one(job: tuple[list[dict], int]) -> Generation:
            msgs, seed = job
            kw = chat_request(self.model, list(msgs), params.with_seed(seed), schema, self.unsupported,
                              self.reasoning_effort)
            resp = self._retry(lambda: self.client.chat.completions.create(**kw), "chat completion")
            ch = resp.choices[0]
            fr = ch.finish_reason or "stop"
            usage = resp.usage
            return Generation(
                text=ch.message.content or "",
                finish_reason=fr,
                prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
                completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
                reasoning_tokens=reported_reasoning_tokens(usage),
            )

        return self._map(one, list(zip(messages, seeds)))

    # -- option scoring: first token (chat completions, top-k log-probs) ------------
    def first_token_request(self) -> dict[str, Any]:
        """Settings of a first-token scoring request as sent (also part of the cache key): greedy
        where the model accepts a temperature, ``top_logprobs`` (at most 20), a token budget that
        covers the options' prefix (``models.<m>.first_token_max_tokens``) plus the
        reasoning reserve of a reasoning model, and its ``reasoning_effort`` where set."""
        visible = int(self.spec.first_token_max_tokens)
        kw: dict[str, Any] = {"temperature": 0.0, "logprobs": True, "top_logprobs": self.top_logprobs,
                              "max_completion_tokens": self.spec.budget(visible), "seed": 0}
        for k in self.unsupported:
            kw.pop(k, None)
        if self.reasoning_effort is not None:
            kw["reasoning_effort"] = self.reasoning_effort
        return kw

    def score_first_token(self, items: Sequence[tuple[list[dict], list[str], str]]) -> list[OptionScores]:
        """Label log-probs of each (messages, labels, prefix) from the top-k of the greedy answer's
        first token after ``prefix`` (``capabilities.first_token_scores``)."""

        def one(item: tuple[list[dict], list[str], str]) -> OptionScores:
            msgs, labels, prefix = item
            kw = {"model": self.model, "messages": list(msgs), **self.first_token_request()}
            resp = self._retry(lambda: self.client.chat.completions.create(**kw), "chat completion (top log-probs)")
            lp = resp.choices[0].logprobs
            content = getattr(lp, "content", None) if lp is not None else None
            if content is None:
                raise RuntimeError(f"model {self.model!r} at {self.spec.base_url or 'default endpoint'} returned no "
                                   f"token log-probs for a request with logprobs=True; it cannot score by first "
                                   f"token (set models.{self.spec.name}.scoring: none)")
            tokens = [(t.token, [(c.token, c.logprob) for c in (t.top_logprobs or [])]) for t in content]
            return first_token_scores(tokens, labels, prefix)

        return self._map(one, list(items))

    # -- option scoring: full (completions endpoint, prompt log-probs) ----------------
    def _no_scoring(self, why: str) -> NotImplementedError:
        return NotImplementedError(
            f"option scoring needs prompt log-probs; model {self.model!r} on endpoint "
            f"{self.spec.base_url or 'default'} {why}. Use a vLLM server (completions endpoint with "
            f"echo + logprobs) or the vllm/transformers backend for scoring."
        )

    def render_for_scoring(self, messages: list[dict]) -> str:
        """The prompt text the model sees: the chat template applied locally (needs ``spec.path``)."""
        from .templates import render_chat

        if self.tokenizer is None:
            raise self._no_scoring("cannot be scored here: set models.<name>.path to a local folder with the "
                                   "model's tokenizer (its chat template renders the prompt and fixes the "
                                   "option token boundary)")
        return render_chat(self.spec, messages, tokenizer_loader=lambda: self.tokenizer)

    def score(self, items: Sequence[tuple[str, list[str]]]) -> list[OptionScores]:
        if self.spec.prompt_logprobs is False:
            raise self._no_scoring(f"is configured without prompt log-probs (models.{self.spec.name}."
                                   f"prompt_logprobs: false)")
        _ = self.tokenizer  # load once, before the worker threads (transformers' lazy imports are not thread-safe)
        return self._map(lambda it: self._score_item(*it), list(items))

    def _score_item(self, rendered: str, options: list[str]) -> OptionScores:
        import openai

        prompt = self.render_for_scoring(parse_messages(rendered))
        tok = self.tokenizer
        p_ids = tok(prompt, add_special_tokens=False)["input_ids"]
        fulls = [tok(prompt + o, add_special_tokens=False)["input_ids"] for o in options]
        starts = [option_boundary(p_ids, f) for f in fulls]
        try:
            resp = self._retry(
                lambda: self.client.completions.create(
                    model=self.model, prompt=fulls, echo=True, logprobs=0, max_tokens=1, temperature=0.0
                ),
                "completion (prompt log-probs)",
            )
        except (openai.BadRequestError, openai.NotFoundError, openai.UnprocessableEntityError) as e:
            raise self._no_scoring(f"refused a completions request with echo + logprobs "
                                   f"({type(e).__name__} {e.status_code})") from None
        choices = sorted(resp.choices, key=lambda c: c.index)
        if len(choices) != len(fulls):
            raise RuntimeError(f"completions endpoint returned {len(choices)} choices for {len(fulls)} prompts")
        logprobs, counts = [], []
        for full, start, ch in zip(fulls, starts, choices):
            lp = getattr(ch.logprobs, "token_logprobs", None) if ch.logprobs is not None else None
            if not lp or len(lp) < len(full):
                raise self._no_scoring("returned no log-probs for the echoed prompt tokens")
            vals = lp[start:len(full)]
            if any(v is None for v in vals):
                raise RuntimeError("completions endpoint returned a null log-prob inside the option")
            logprobs.append(float(sum(vals)))
            counts.append(len(full) - start)
        return OptionScores(logprobs=logprobs, token_counts=counts)
