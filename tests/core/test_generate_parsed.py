"""generate_parsed records how each attempt's generation ended (finish reason, completion tokens)
beside its seed, temperature, raw output and parse error, from the backend and from the cache."""

from __future__ import annotations

import json

from cultalign.models import ChatRequest, ModelClient, ModelSpec, RequestCache, SamplingParams
from cultalign.models.types import Generation


class FakeFirstAttemptCutBackend:
    """Fake backend: a greedy request (the first attempt) is cut at one token with finish reason
    "length"; a retried one (temperature > 0) answers two words and stops."""

    def __init__(self):
        self.calls = 0

    def generate(self, prompts, params, schema=None, messages=None, seeds=None):
        self.calls += len(prompts)
        if params.temperature == 0.0:
            return [Generation("Well", "length", 7, 1) for _ in prompts]
        return [Generation("Do it.", "stop", 7, 3) for _ in prompts]


def _parse(text: str) -> str:
    if len(text.split()) < 2:
        raise ValueError("one word")
    return text


def _client(cache=None) -> ModelClient:
    spec = ModelSpec(name="fake", backend="transformers", chat_template="plain")
    return ModelClient(spec, cache, backend=FakeFirstAttemptCutBackend(), max_attempts=3)


def test_each_attempt_records_its_finish_reason_and_completion_tokens(tmp_path):
    reqs = [ChatRequest.make("Advice?", SamplingParams(temperature=0.0, max_new_tokens=1, seed=4))]
    cache = RequestCache(str(tmp_path), "fake@local", "test")
    [res] = _client(cache).generate_parsed(reqs, _parse)
    assert res.valid and res.value == "Do it."
    assert [(a["finish_reason"], a["completion_tokens"]) for a in res.attempts] == [("length", 1), ("stop", 3)]
    assert res.attempts[0]["error"] == "ValueError: one word" and res.attempts[1]["error"] is None
    assert set(res.attempts[0]) == {"seed", "temperature", "raw", "error", "finish_reason", "completion_tokens"}
    # the same records when every generation comes from the cache (a rerun), and they serialise
    # as JSON (personas release_eval writes them into its attempts_raw column)
    again = _client(RequestCache(str(tmp_path), "fake@local", "test"))
    [cached] = again.generate_parsed(reqs, _parse)
    assert again.stats["model_requests"] == 0 and again.stats["cache_hits"] == 2
    assert cached.attempts == res.attempts
    assert json.loads(json.dumps(cached.attempts)) == res.attempts


def test_an_invalid_result_keeps_how_its_last_attempt_ended():
    reqs = [ChatRequest.make("Advice?", SamplingParams(temperature=0.0, max_new_tokens=1, seed=4))]
    [res] = _client().generate_parsed(reqs, _parse, max_attempts=1)
    assert not res.valid and res.raw == "Well"
    assert res.attempts == [{"seed": 4, "temperature": 0.0, "raw": "Well", "error": "ValueError: one word",
                             "finish_reason": "length", "completion_tokens": 1}]
