"""The one model interface every study uses: ``ModelClient``.

It renders prompts (chat template applied once and recorded), looks every
request up in the cache, sends only the misses to the backend in batches,
writes results back per batch (so a killed job resumes where it stopped) and
retries unparseable outputs a bounded number of times with new seeds.
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any, Callable, Sequence

import jsonschema

from ..core.progress import Progress
from .cache import RequestCache, canonical_json, request_key, schema_json
from .cpu import precision_record
from .types import ChatRequest, Generation, ModelSpec, OptionScores, ParsedResult, SamplingParams, ScoreItem

log = logging.getLogger(__name__)

RETRY_SEED_STRIDE = 1_000_003
# Part of the key of structured-output requests: bump when the constrained
# decoding changes (v2: compact JSON, no free whitespace; v3: properties in the
# schema's own order, not sorted)
STRUCTURED_DECODING = "json-compact-ordered-v3"
# Part of the key of sampled requests on the transformers backend: bump when the
# sampler changes (v1: per-request seeded Gumbel-max, no implicit top-k)
TRANSFORMERS_SAMPLER = "per-request-gumbel-v1"


def make_backend(spec: ModelSpec):
    if spec.backend == "transformers":
        from .transformers_backend import TransformersBackend

        return TransformersBackend(spec)
    if spec.backend == "vllm":
        import importlib.util

        from .vllm_worker import VLLMWorkerBackend, worker_python

        py = worker_python()
        if py and importlib.util.find_spec("vllm") is None:  # vLLM lives in another interpreter
            return VLLMWorkerBackend(spec, py)
        from .vllm_backend import VLLMBackend

        return VLLMBackend(spec)
    if spec.backend == "openai":
        from .openai_backend import OpenAIBackend

        return OpenAIBackend(spec)
    raise ValueError(f"unknown backend {spec.backend!r} for model {spec.name}")


class ModelClient:
    """Cached, batched access to one model.

    The backend is created lazily, on the first cache miss: rendering (the cache
    key) needs only the tokenizer and chat template, so a run whose requests are
    all cached never loads the weights.  ``stats`` counts cache hits and backend
    requests; ``load_seconds`` is the time spent creating the backend (0 when
    it never was).
    """

    def __init__(self, spec: ModelSpec, cache: RequestCache | None = None, backend: Any | None = None,
                 retry_temperature: float = 0.7, max_attempts: int = 3, max_cut_share: float | None = None):
        self.spec = spec
        self.cache = cache
        self._backend = backend
        self._tokenizer = None
        self.retry_temperature = retry_temperature
        self.max_attempts = max_attempts  # of generate_parsed / generate_json (config retry.max_attempts)
        self.stats = {"cache_hits": 0, "model_requests": 0, "backend_batches": 0}
        self.load_seconds = 0.0
        # config model_outputs.max_cut_share (None: counted, never failed)
        self.max_cut_share = max_cut_share
        self.outputs = new_output_counts()  # generations since the last table written (take_output_counts)

    @property
    def backend(self):
        if self._backend is None:
            log.info("loading model %s (%s) from %s", self.spec.name, self.spec.backend, self.spec.location)
            t0 = time.perf_counter()
            self._backend = make_backend(self.spec)
            self.load_seconds += time.perf_counter() - t0
        return self._backend

    def close(self) -> None:
        """Release the backend (stops a vLLM engine cleanly); the client stays usable."""
        if self._backend is not None and hasattr(self._backend, "close"):
            self._backend.close()
        self._backend = None

    def __enter__(self) -> "ModelClient":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- rendering ---------------------------------------------------------
    def render(self, messages: Sequence[tuple[str, str]] | list[dict]) -> str:
        """The exact prompt text the model sees (chat template applied)."""
        if messages and isinstance(messages[0], tuple):
            messages = [{"role": r, "content": c} for r, c in messages]
        if self.spec.backend == "openai":
            return canonical_json(messages)  # the server applies its template
        from .templates import render_chat

        return render_chat(self.spec, messages, tokenizer_loader=self.tokenizer)

    def tokenizer(self):
        """The tokenizer alone (no weights), so a warm-cache run never loads the model."""
        if self._tokenizer is None:
            if self._backend is not None and getattr(self._backend, "tokenizer", None) is not None:
                self._tokenizer = self._backend.tokenizer
            else:
                from transformers import AutoTokenizer

                self._tokenizer = AutoTokenizer.from_pretrained(self.spec.location, revision=self.spec.revision)
        return self._tokenizer

    def template_hash(self) -> str:
        from .templates import template_hash, template_text

        if self.spec.backend == "openai" and not self.spec.path:
            return "server-side"  # the endpoint applies its own template; nothing local to hash
        tok = None if self.spec.chat_template == "plain" else self.tokenizer()
        return template_hash(template_text(self.spec, tok))

    # -- generation --------------------------------------------------------
    def _sent_params(self, params: SamplingParams) -> dict:
        """The settings a request carries (the model's unsupported_params left out, logged once)."""
        sent = self.spec.sent_params(params)
        if self.spec.refused_params and not self._dropped_logged:
            self._dropped_logged = True
            log.warning("model %s does not accept %s: left out of its requests (the provider's defaults "
                        "apply; models.%s.unsupported_params / family)", self.spec.name,
                        ", ".join(self.spec.refused_params), self.spec.name)
        return sent

    def _gen_payload(self, rendered: str, params: SamplingParams, schema: str | None) -> dict:
        # the key holds the settings actually sent (without the model's unsupported_params)
        payload = {"prompt": rendered, "params": self._sent_params(params), "schema": schema}
        if schema is not None:
            payload["structured_decoding"] = STRUCTURED_DECODING
        if params.temperature > 0 and self.spec.backend == "transformers":
            payload["sampler"] = TRANSFORMERS_SAMPLER
        return payload

    def generate(self, requests: Sequence[ChatRequest]) -> list[Generation]:
        rendered = [self.render(r.messages) for r in requests]
        gens = self._generate_rendered(requests, rendered)
        count_outputs(self.outputs, gens, self.spec.reasons)
        return gens

    # -- outputs behind a table: counted, and checked before the table is written ----------
    def take_output_counts(self) -> dict[str, int]:
        """Counts of the generations since the last call (the outputs behind one table), then reset."""
        out, self.outputs = self.outputs, new_output_counts()
        return out

    def check_outputs(self, table: str) -> None:
        """Raise ``CutOutputsError`` when more than ``max_cut_share`` of the generations behind
        ``table`` (since the last table) were cut (``count_outputs``)."""
        problem = cut_problem(self.outputs, self.max_cut_share, self.spec)
        if problem:
            raise CutOutputsError(f"{table}: {problem}")

    def _generate_rendered(self, requests: Sequence[ChatRequest], rendered: list[str]) -> list[Generation]:
        payloads = [self._gen_payload(p, r.params, r.schema) for p, r in zip(rendered, requests)]
        keys, out, todo, first_of = self._lookup("generate", payloads, Generation)
        uniq = list(first_of.values())
        bs = max(1, self.spec.batch_size)
        progress = self._progress("generate", len(payloads), todo, uniq, token_unit="generated tokens")
        # batch by identical decoding settings and schema; seeds may differ within a
        # batch (every backend seeds each request on its own)
        groups: dict[str, list[int]] = {}
        for i in uniq:
            settings = self.spec.sent_params(requests[i].params.with_seed(0))
            groups.setdefault(canonical_json([settings, requests[i].schema]), []).append(i)
        for idx in groups.values():
            if self.spec.backend == "transformers":
                # shortest prompts first: a padded batch's prompts are of similar length, so it pads
                # little (vLLM and API providers schedule requests themselves: their order is kept,
                # and with it the neighbourhood of requests that share a prefix)
                idx = sorted(idx, key=lambda i: len(rendered[i]))
            for s in range(0, len(idx), bs):
                chunk = idx[s : s + bs]
                gens = self.backend.generate(
                    [rendered[i] for i in chunk],
                    self.spec.request_params(requests[chunk[0]].params),  # the model's token budget
                    schema=requests[chunk[0]].schema,
                    messages=[requests[i].message_dicts() for i in chunk],
                    seeds=[requests[i].params.seed for i in chunk],
                )
                self.stats["model_requests"] += len(chunk)
                self.stats["backend_batches"] += 1
                if self.cache is not None:
                    self.cache.put_many(
                        [(keys[i], "generate", payloads[i], g.to_dict()) for i, g in zip(chunk, gens)]
                    )
                for i, g in zip(chunk, gens):
                    out[i] = g
                progress.update(len(chunk), tokens=sum(g.completion_tokens for g in gens))
        return self._fill_duplicates(out, todo, keys, first_of, Generation)

    def _progress(self, kind: str, n: int, todo: list[int], uniq: list[int], **kw) -> Progress:
        """Progress lines of one call's model requests (the cached and repeated ones are not counted)."""
        note = f"of {n}: {n - len(todo)} from the cache, {len(todo) - len(uniq)} repeated; batch size " \
               f"{max(1, self.spec.batch_size)}"
        return Progress(f"model {self.spec.name} {kind}", len(uniq), "requests", start_note=note, **kw)

    def _lookup(self, kind: str, payloads: list[dict], cls):
        """Keys, results found in the cache (others None), indices still to compute,
        and the first index of each distinct missing key (duplicates run once)."""
        ident = self.spec.identity()
        keys = [request_key(kind, ident, pl) for pl in payloads]
        hits = self.cache.get_many(keys) if self.cache is not None else {}
        out = [cls(**hits[k], cached=True) if k in hits else None for k in keys]
        self.stats["cache_hits"] += len(keys) - out.count(None)
        todo = [i for i, o in enumerate(out) if o is None]
        first_of: dict[str, int] = {}
        for i in todo:
            first_of.setdefault(keys[i], i)
        return keys, out, todo, first_of

    @staticmethod
    def _fill_duplicates(out, todo, keys, first_of, cls):
        for i in todo:
            if out[i] is None:
                out[i] = cls(**out[first_of[keys[i]]].to_dict(), cached=True)
        return out

    def generate_parsed(
        self,
        requests: Sequence[ChatRequest],
        parse: Callable[[str], Any],
        max_attempts: int | None = None,
    ) -> list[ParsedResult]:
        """Generate and parse; an output ``parse`` rejects (raises) is retried
        with a new seed (and at least ``retry_temperature``) up to
        ``max_attempts`` times (default: the client's), then returned with ``valid=False``.
        Each attempt is recorded (``ParsedResult.attempts``): its seed, temperature, raw output,
        parse error (None when it parsed), and how the generation ended, ``finish_reason`` and
        ``completion_tokens``."""
        max_attempts = self.max_attempts if max_attempts is None else max_attempts
        results: list[ParsedResult | None] = [None] * len(requests)
        attempts: list[list[dict]] = [[] for _ in requests]
        pending = list(range(len(requests)))
        for attempt in range(max_attempts):
            if not pending:
                break
            reqs = []
            for i in pending:
                r = requests[i]
                p = r.params
                if attempt > 0:
                    p = p.with_seed(p.seed + attempt * RETRY_SEED_STRIDE)
                    if p.temperature < self.retry_temperature:
                        p = p.with_temperature(self.retry_temperature)
                reqs.append(ChatRequest(r.messages, p, r.schema))
            gens = self.generate(reqs)
            still = []
            for i, r, g in zip(pending, reqs, gens):
                try:
                    value = parse(g.text)
                    err = None
                except Exception as e:  # noqa: BLE001 - any parse failure is recorded
                    value, err = None, f"{type(e).__name__}: {e}"
                attempts[i].append({"seed": r.params.seed, "temperature": r.params.temperature,
                                    "raw": g.text, "error": err, "finish_reason": g.finish_reason,
                                    "completion_tokens": g.completion_tokens})
                if err is None:
                    results[i] = ParsedResult(value, True, g.text, attempts[i])
                else:
                    still.append(i)
            pending = still
        for i in pending:
            results[i] = ParsedResult(None, False, attempts[i][-1]["raw"], attempts[i])
        return results  # type: ignore[return-value]

    def generate_json(self, requests: Sequence[ChatRequest], schema: dict,
                      max_attempts: int | None = None) -> list[ParsedResult]:
        """Structured output: constrained decoding where the backend supports it
        (xgrammar for transformers, structured outputs for vLLM / OpenAI), and
        always validation against the same JSON schema."""
        schema_text = schema_json(schema)
        reqs = [ChatRequest(r.messages, r.params, schema_text) for r in requests]
        validator = jsonschema.Draft202012Validator(schema)

        def parse(text: str) -> Any:
            obj = json.loads(extract_json(text))
            validator.validate(obj)
            return obj

        return self.generate_parsed(reqs, parse, max_attempts=max_attempts)

    # -- capabilities and provenance -----------------------------------------
    _dropped_logged = False  # unsupported_params logged (once per client)

    @property
    def scoring(self) -> str:
        """This model's option-scoring strategy: full, first_token or none (``ModelSpec.scoring_strategy``)."""
        return self.spec.scoring_strategy

    def provenance(self) -> dict[str, Any]:
        """What a table's sidecar records about the model: identity, chat template, the
        option-scoring strategy and the sampling settings left out of every request."""
        rec = {"name": self.spec.name, **self.spec.identity(), "chat_template_hash": self.template_hash(),
               "scoring": self.scoring, "unsupported_params": list(self.spec.refused_params)}
        if self.spec.family:
            rec.update(family=self.spec.family, reasoning_effort=self.spec.reasoning_effort,
                       reasoning_tokens=self.spec.reasoning_tokens)
        if self.spec.backend == "transformers":
            # the loaded backend's precision (dtype as loaded, device, the CPU's bfloat16 support); the
            # configured dtype on this machine's CPU when every request came from the cache
            loaded = getattr(self._backend, "precision", None)
            rec.update(precision=loaded or precision_record(self.spec.dtype), compile=self.spec.compile)
        return rec

    # -- option scoring ----------------------------------------------------
    def score_options(self, items: Sequence[ScoreItem]) -> list[OptionScores]:
        """Option log-probabilities by the model's strategy (``self.scoring``): ``full`` (each
        whole option) or ``first_token`` (the items' labels from the top-k of the first answer
        token; items must have labels).  A model that cannot score raises (the parse-time
        check, ``capabilities.check_scoring``, stops such a config before any job runs)."""
        strategy = self.scoring
        if strategy == "none":
            raise NotImplementedError(f"model {self.spec.name!r} cannot score options "
                                      f"(models.{self.spec.name}.scoring: none)")
        if strategy == "first_token":
            return self._score_first_token(items)
        rendered = [self.render(it.messages) for it in items]
        payloads = [{"prompt": p, "options": list(it.options)} for p, it in zip(rendered, items)]
        if self.spec.backend == "openai":
            # the openai backend renders scoring prompts with the local chat template:
            # make a template change visible in the key
            th = self.template_hash()
            for pl in payloads:
                pl["chat_template_hash"] = th
        return self._scored(payloads, lambda chunk: self.backend.score(
            [(rendered[i], list(items[i].options)) for i in chunk]))

    def _scored(self, payloads: list[dict], compute: Callable[[list[int]], list[OptionScores]]) -> list[OptionScores]:
        """Scores of the requests ``payloads`` (cache keys): cached ones looked up, the others
        ``compute``d in batches of indices and written back per batch."""
        keys, out, todo, first_of = self._lookup("score", payloads, OptionScores)
        uniq = list(first_of.values())
        bs = max(1, self.spec.batch_size)
        progress = self._progress("score", len(payloads), todo, uniq, token_unit="option tokens")
        for s in range(0, len(uniq), bs):
            chunk = uniq[s : s + bs]
            scores = compute(chunk)
            progress.update(len(chunk), tokens=sum(sum(sc.token_counts) for sc in scores))
            self.stats["model_requests"] += len(chunk)
            self.stats["backend_batches"] += 1
            if self.cache is not None:
                self.cache.put_many([(keys[i], "score", payloads[i], sc.to_dict()) for i, sc in zip(chunk, scores)])
            for i, sc in zip(chunk, scores):
                out[i] = sc
        return self._fill_duplicates(out, todo, keys, first_of, OptionScores)

    def _score_first_token(self, items: Sequence[ScoreItem]) -> list[OptionScores]:
        from .capabilities import label_problem

        for it in items:
            why = label_problem(it.labels)
            if why:
                raise ValueError(f"model {self.spec.name!r} scores by first-token log-probs "
                                 f"(models.{self.spec.name}.scoring: first_token), but {why}: options {it.options}")
        if not hasattr(self.backend, "score_first_token"):
            raise NotImplementedError(f"backend {self.spec.backend!r} of model {self.spec.name!r} has no "
                                      f"first-token scoring (set models.{self.spec.name}.scoring: full)")
        request = self.backend.first_token_request()  # settings of the answer request, as sent
        payloads = [{"messages": canonical_json(it.message_dicts()), "labels": list(it.labels),
                     "prefix": it.prefix, "strategy": "first_token", "request": request} for it in items]
        return self._scored(payloads, lambda chunk: self.backend.score_first_token(
            [(items[i].message_dicts(), list(items[i].labels), items[i].prefix) for i in chunk]))


OUTPUT_COUNTS = ("outputs", "length_stopped", "empty", "cut", "reasoning_tokens")


class CutOutputsError(RuntimeError):
    """Too many of a table's model outputs were cut at the token budget (config model_outputs.max_cut_share)."""


def new_output_counts() -> dict[str, int]:
    return dict.fromkeys(OUTPUT_COUNTS, 0)


def count_outputs(counts: dict[str, int], gens: Sequence[Generation], reasons: bool) -> dict[str, int]:
    """Add ``gens`` (cached ones too: the counts describe the outputs behind a table) to ``counts``:
    ``length_stopped`` (finish reason ``length``), ``empty`` (no visible text), ``cut`` (stopped at
    the budget by a reasoning model, whose reasoning shares the budget, or with an empty visible
    answer) and the ``reasoning_tokens`` the provider reported."""
    for g in gens:
        length = g.finish_reason == "length"
        empty = not (g.text or "").strip()
        counts["outputs"] += 1
        counts["length_stopped"] += length
        counts["empty"] += empty
        counts["cut"] += length and (reasons or empty)
        counts["reasoning_tokens"] += int(g.reasoning_tokens or 0)
    return counts


def cut_problem(counts: dict[str, int], max_share: float | None, spec: ModelSpec) -> str | None:
    """Why the outputs ``counts`` fail the check (None when they pass or no check is set)."""
    n = counts.get("outputs", 0)
    if max_share is None or not n or counts.get("cut", 0) / n <= max_share:
        return None
    share = counts["cut"] / n
    fix = (f"raise models.{spec.name}.reasoning_tokens (now {spec.reasoning_tokens}) or lower "
           f"models.{spec.name}.reasoning_effort" if spec.reasons else "raise the rule's max_new_tokens")
    return (f"{counts['cut']} of {n} outputs of model {spec.name!r} ({share:.1%}) were cut at the token budget "
            f"({counts['length_stopped']} stopped at the budget, {counts['empty']} empty, "
            f"{counts['reasoning_tokens']} reasoning tokens), more than model_outputs.max_cut_share = "
            f"{max_share}; {fix}")


def extract_json(text: str) -> str:
    """The first balanced JSON object/array in ``text`` (models often wrap JSON in prose or fences)."""
    start = min((i for i in (text.find("{"), text.find("[")) if i >= 0), default=-1)
    if start < 0:
        raise ValueError("no JSON object in output")
    opener = text[start]
    closer = "}" if opener == "{" else "]"
    depth, in_str, esc = 0, False, False
    for j in range(start, len(text)):
        ch = text[j]
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch == opener:
            depth += 1
        elif ch == closer:
            depth -= 1
            if depth == 0:
                return text[start : j + 1]
    raise ValueError("unterminated JSON in output")


def load_client(models_cfg: dict, name: str, cache_dir: str | None, writer: str | None = None,
                 retry_temperature: float = 0.7, max_attempts: int = 3,
                 max_cut_share: float | None = None) -> ModelClient:
    """Build a client for config entry ``models[name]``."""
    if name not in models_cfg:
        raise KeyError(f"model {name!r} is not declared under 'models:' in the config (have: {sorted(models_cfg)})")
    spec = ModelSpec.from_config(name, models_cfg[name])
    cache = RequestCache(cache_dir, f"{spec.model_id}@{spec.revision or 'local'}", writer) if cache_dir else None
    return ModelClient(spec, cache, retry_temperature=retry_temperature, max_attempts=max_attempts,
                       max_cut_share=max_cut_share)


def llm_param(config: dict, spec: ModelSpec) -> dict[str, Any]:
    """The model param of a rule (``llm_of`` in ``rules/common.smk``) for the parse-time ``spec``
    (``types.model_specs``): ``{"name", "spec", "scoring", "cache_dir", "retry", "outputs"}``, i.e.
    the model's validated entry (without its display name, which only labels figures), its
    resolved scoring strategy, the request-cache settings and ``model_outputs``, nothing else."""
    return {"name": spec.name, "spec": spec.config_entry(), "scoring": spec.scoring_strategy,
            "cache_dir": config["cache_dir"], "retry": config["retry"],
            # a table more of whose outputs were cut fails (model_outputs.max_cut_share)
            "outputs": config["model_outputs"]}


def open_client(job, param: str = "llm") -> ModelClient:
    """The client of a rule job (``cultalign.core.job.Job``) from its model param (``llm_param``).

    The job rebuilds the model's ``ModelSpec`` from the entry in the param: it equals the one the
    workflow made when it was parsed, whose scoring strategy the param carries (checked here)."""
    llm = job.params.get(param)
    if llm is None:
        raise KeyError(f"rule {job.rule}: no param {param!r} (give the rule `{param}=llm_of(...)`)")
    client = load_client({llm["name"]: llm["spec"]}, llm["name"], llm["cache_dir"], writer=job.writer,
                         retry_temperature=llm["retry"]["temperature"], max_attempts=llm["retry"]["max_attempts"],
                         max_cut_share=(llm.get("outputs") or {}).get("max_cut_share"))
    if "scoring" in llm and llm["scoring"] != client.scoring:
        raise RuntimeError(f"rule {job.rule}: model {llm['name']!r} scores {client.scoring!r} here but "
                           f"{llm['scoring']!r} in the workflow's parse-time check")
    return client
