"""Pure logic of the openai backend: key handling, request building, retry decisions.

The HTTP side is a *fake* transport (``httpx.MockTransport``) that plays a
server: it records requests and answers with canned JSON or error statuses.
The backend's real code (openai client, retries, parsing) runs on top of it.
The same backend against a real server (vllm serve) is in test_vllm_backend.py.
"""

from __future__ import annotations

import json

import httpx
import openai
import pytest

from cultalign.models import ChatRequest, ModelClient, ModelSpec, RequestCache, SamplingParams
from cultalign.models import openai_backend as ob

KEY = "sk-unit-test-secret-0123456789"


def _spec(**kw) -> ModelSpec:
    base = dict(name="m", backend="openai", base_url="http://fake.invalid/v1", api_key_env="UNIT_KEY",
                max_retries=3, backoff_base=0.0, backoff_cap=0.0)
    base.update(kw)
    return ModelSpec(**base)


def _chat_json(text: str, finish: str = "stop") -> dict:
    return {"id": "x", "object": "chat.completion", "created": 0, "model": "m",
            "choices": [{"index": 0, "finish_reason": finish,
                         "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7}}


class FakeServer:
    """A fake HTTP transport: a scripted list of (status, json) answers, and every request seen."""

    def __init__(self, answers):
        self.answers = list(answers)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        status, body, headers = self.answers.pop(0)
        return httpx.Response(status, json=body, headers=headers or {})

    def backend(self, spec: ModelSpec, environ=None) -> ob.OpenAIBackend:
        return ob.OpenAIBackend(spec, http_client=httpx.Client(transport=httpx.MockTransport(self)),
                                environ=environ if environ is not None else {"UNIT_KEY": KEY})


# -- key handling --------------------------------------------------------------
def test_key_from_named_env_var_and_no_key_default():
    assert ob.resolve_api_key(_spec(), {"UNIT_KEY": KEY}) == KEY
    assert ob.resolve_api_key(_spec(api_key_env=None), {"UNIT_KEY": KEY}) == "EMPTY"


def test_missing_key_names_variable_not_value():
    with pytest.raises(RuntimeError, match="UNIT_KEY") as e:
        ob.resolve_api_key(_spec(), {})
    with pytest.raises(RuntimeError, match="UNIT_KEY"):
        ob.resolve_api_key(_spec(), {"UNIT_KEY": ""})
    assert KEY not in str(e.value)


def test_key_sent_as_bearer_and_never_in_repr_logs_or_cache(tmp_path, caplog):
    caplog.set_level("DEBUG")
    fake = FakeServer([(200, _chat_json("hi"), None)])
    backend = fake.backend(_spec())
    assert KEY not in repr(backend)
    client = ModelClient(_spec(), RequestCache(tmp_path, "m", writer="w"), backend=backend)
    client.generate([ChatRequest.make("hello", SamplingParams(max_new_tokens=3))])
    assert fake.requests[0].headers["authorization"] == f"Bearer {KEY}"
    assert KEY not in caplog.text
    for p in tmp_path.rglob("*.sqlite"):
        assert KEY.encode() not in p.read_bytes()


# -- request building ------------------------------------------------------------
def test_chat_request_fields():
    p = SamplingParams(temperature=0.7, top_p=0.9, max_new_tokens=12, stop=("\n",), seed=5)
    kw = ob.chat_request("srv", [{"role": "user", "content": "q"}], p, None)
    assert kw == {"model": "srv", "messages": [{"role": "user", "content": "q"}], "temperature": 0.7,
                  "top_p": 0.9, "max_completion_tokens": 12, "seed": 5, "stop": ["\n"]}
    greedy = ob.chat_request("srv", [], SamplingParams(top_p=0.5), None)
    assert greedy["temperature"] == 0.0 and greedy["top_p"] == 1.0 and "stop" not in greedy


def test_structured_output_request_and_strictness():
    closed = {"type": "object", "properties": {"a": {"enum": ["x", "y"]}, "b": {"type": "string"}},
              "required": ["a", "b"], "additionalProperties": False}
    kw = ob.chat_request("srv", [], SamplingParams(), json.dumps(closed))
    rf = kw["response_format"]
    assert rf["type"] == "json_schema" and rf["json_schema"]["schema"] == closed
    assert rf["json_schema"]["strict"] is True
    assert ob.strict_compatible({**closed, "required": ["a"]}) is False
    assert ob.strict_compatible({k: v for k, v in closed.items() if k != "additionalProperties"}) is False
    nested_open = {**closed, "properties": {**closed["properties"],
                                            "c": {"type": "object", "properties": {}}}, "required": ["a", "b", "c"]}
    assert ob.strict_compatible(nested_open) is False


def test_generate_sends_messages_and_parses_reply():
    fake = FakeServer([(200, _chat_json("Paris", "length"), None)])
    backend = fake.backend(_spec(api_model="served-name"))
    msgs = [{"role": "system", "content": "s"}, {"role": "user", "content": "q"}]
    [g] = backend.generate([json.dumps(msgs)], SamplingParams(max_new_tokens=2), messages=[msgs])
    body = json.loads(fake.requests[0].content)
    assert body["model"] == "served-name" and body["messages"] == msgs and body["max_completion_tokens"] == 2
    assert fake.requests[0].url.path == "/v1/chat/completions"
    assert (g.text, g.finish_reason, g.prompt_tokens, g.completion_tokens) == ("Paris", "length", 5, 2)


def test_messages_parsed_from_client_rendering():
    assert ob.parse_messages('[{"content":"q","role":"user"}]') == [{"role": "user", "content": "q"}]
    with pytest.raises(ValueError):
        ob.parse_messages("<|im_start|>user q")
    with pytest.raises(ValueError):
        ob.parse_messages('{"role":"user"}')


# -- retries -------------------------------------------------------------------
def test_retries_rate_limit_and_5xx_then_succeeds():
    fake = FakeServer([(429, {"error": {"message": "slow down"}}, {"retry-after-ms": "1"}),
                       (503, {"error": {"message": "busy"}}, None),
                       (200, _chat_json("ok"), None)])
    [g] = fake.backend(_spec()).generate(["[]"], SamplingParams(), messages=[[{"role": "user", "content": "q"}]])
    assert g.text == "ok" and len(fake.requests) == 3


def test_retries_are_bounded():
    fake = FakeServer([(500, {"error": {"message": "boom"}}, None)] * 4)
    with pytest.raises(openai.InternalServerError):
        fake.backend(_spec()).generate(["[]"], SamplingParams(), messages=[[{"role": "user", "content": "q"}]])
    assert len(fake.requests) == 4  # first try + max_retries (3)


@pytest.mark.parametrize("status,exc", [(400, openai.BadRequestError), (401, openai.AuthenticationError),
                                        (404, openai.NotFoundError)])
def test_client_errors_are_not_retried(status, exc):
    fake = FakeServer([(status, {"error": {"message": "no"}}, None)])
    with pytest.raises(exc):
        fake.backend(_spec()).generate(["[]"], SamplingParams(), messages=[[{"role": "user", "content": "q"}]])
    assert len(fake.requests) == 1


def test_backoff_delays():
    assert ob.backoff_delay(0, base=1.0, cap=30.0, rng=lambda: 1.0) == 1.0
    assert ob.backoff_delay(3, base=1.0, cap=30.0, rng=lambda: 1.0) == 8.0
    assert ob.backoff_delay(3, base=1.0, cap=30.0, rng=lambda: 0.0) == 4.0  # jitter floor: half
    assert ob.backoff_delay(10, base=1.0, cap=30.0, rng=lambda: 1.0) == 30.0
    assert ob.backoff_delay(0, server_wait=7.0) == 7.0
    assert ob.backoff_delay(0, cap=5.0, server_wait=70.0) == 5.0


def test_call_with_retries_sleeps_per_backoff():
    req = httpx.Request("POST", "http://fake.invalid/v1/x")
    errors = [openai.RateLimitError("rl", response=httpx.Response(429, request=req,
                                                                  headers={"retry-after": "2"}), body=None),
              openai.APITimeoutError(request=req)]
    slept = []

    def fn():
        if errors:
            raise errors.pop(0)
        return "done"

    assert ob.call_with_retries(fn, max_retries=5, base=0.5, cap=10.0, sleep=slept.append) == "done"
    assert slept[0] == 2.0 and 0.25 <= slept[1] <= 1.0
    assert ob.is_retryable(ValueError("x")) is False


# -- scoring ----------------------------------------------------------------------
def test_scoring_disabled_fails_fast_with_a_clear_message():
    fake = FakeServer([])
    backend = fake.backend(_spec(prompt_logprobs=False, api_model="gpt-x"))
    with pytest.raises(NotImplementedError, match="option scoring needs prompt log-probs; model 'gpt-x'"):
        backend.score([('[{"role":"user","content":"q"}]', ["A", "B"])])
    assert fake.requests == []


def test_scoring_without_local_tokenizer_says_what_to_set():
    backend = FakeServer([]).backend(_spec(path=None))
    with pytest.raises(NotImplementedError, match="path"):
        backend.score([('[{"role":"user","content":"q"}]', ["A"])])


def test_option_boundary_rule():
    assert ob.option_boundary([1, 2, 3], [1, 2, 3, 4, 5]) == 3
    assert ob.option_boundary([1, 2, 3], [1, 2, 9, 5]) == 2  # merge across the boundary moves a token
    assert ob.option_boundary([1, 2, 3], [1, 2, 3]) == 2  # empty option: at least one token scored


# -- vllm backend: its pure helpers import without vLLM ------------------------------
def test_vllm_engine_kwargs_and_logprob_sum():
    from cultalign.models import vllm_backend as vb

    spec = ModelSpec(name="m", backend="vllm", path="/models/m", revision="label-only", dtype="bfloat16",
                     max_context=4096, tensor_parallel_size=2, gpu_memory_utilization=0.8,
                     extra={"enforce_eager": True, "seed": 7})
    kw = vb.engine_kwargs(spec)
    assert kw["model"] == "/models/m" and kw["max_model_len"] == 4096 and kw["tensor_parallel_size"] == 2
    assert kw["enable_prefix_caching"] is True and kw["enforce_eager"] is True and kw["seed"] == 7
    assert "revision" not in kw  # a local folder: the revision is only the cache label
    hub = vb.engine_kwargs(ModelSpec(name="m", backend="vllm", hub_id="org/m", revision="abc123"))
    assert hub["model"] == "org/m" and hub["revision"] == "abc123" and hub["tokenizer_revision"] == "abc123"
    rows = [None, {5: -0.5}, {6: -1.0, 9: -0.1}, {7: -2.0}]
    assert vb.sum_prompt_logprobs(rows, [4, 5, 6, 7], 2) == -3.0
    with pytest.raises(RuntimeError, match="token 2"):
        vb.sum_prompt_logprobs(rows, [4, 5, 8, 7], 2)  # the actual token missing: an error, not a zero
    assert vb.option_boundary([1, 2, 3], [1, 2, 9, 5]) == 2


# -- parameters a model does not accept (models.<m>.unsupported_params) --------------------
def test_unsupported_params_are_left_out_of_request_cache_key_and_provenance(tmp_path, caplog):
    from cultalign.core.provenance import sidecar_record
    from cultalign.models.cache import request_key

    caplog.set_level("WARNING")
    spec = _spec(unsupported_params=["temperature", "top_p"])
    fake = FakeServer([(200, _chat_json("one"), None), (200, _chat_json("two"), None)])
    client = ModelClient(spec, RequestCache(tmp_path, "m", writer="w"), backend=fake.backend(spec))
    # two temperatures, one request: what is sent is the same, so is the key
    reqs = [ChatRequest.make("q", SamplingParams(temperature=t, top_p=0.9, max_new_tokens=4, seed=1))
            for t in (0.3, 0.7)]
    a, b = client.generate(reqs)
    assert len(fake.requests) == 1 and a.text == b.text == "one"
    body = json.loads(fake.requests[0].content)
    assert "temperature" not in body and "top_p" not in body
    assert body["seed"] == 1 and body["max_completion_tokens"] == 4
    sent = {"max_new_tokens": 4, "stop": [], "seed": 1}
    key = request_key("generate", spec.identity(), {"prompt": client.render(reqs[0].messages), "params": sent,
                                                   "schema": None})
    assert key in client.cache.get_many([key])
    client.generate([ChatRequest.make("other", SamplingParams(temperature=0.3, max_new_tokens=4))])
    dropped = [r for r in caplog.records if "does not accept temperature, top_p" in r.getMessage()]
    assert len(dropped) == 1  # logged once per client
    rec = sidecar_record(tmp_path / "t.tsv", client=client)
    assert rec["model"]["unsupported_params"] == ["temperature", "top_p"]
    assert rec["model"]["scoring"] == "first_token"


def test_model_accepting_all_params_sends_them_and_keeps_its_keys():
    spec = _spec()
    fake = FakeServer([(200, _chat_json("x"), None)])
    client = ModelClient(spec, None, backend=fake.backend(spec))
    client.generate([ChatRequest.make("q", SamplingParams(temperature=0.3, top_p=0.9, max_new_tokens=4))])
    body = json.loads(fake.requests[0].content)
    assert body["temperature"] == 0.3 and body["top_p"] == 0.9
    assert ob.chat_request("s", [], SamplingParams(temperature=0.5), None, ("temperature", "top_p")).keys() == {
        "model", "messages", "max_completion_tokens", "seed"}


# -- first-token scoring through chat completions (fake transport) -----------------------
def _logprob_json(tokens) -> dict:
    """A chat completion whose choice carries per-token top log-probs: tokens = [(tok, [(cand, lp)])]."""
    body = _chat_json("".join(t for t, _ in tokens))
    body["choices"][0]["logprobs"] = {"content": [
        {"token": t, "logprob": top[0][1], "bytes": None,
         "top_logprobs": [{"token": c, "logprob": lp, "bytes": None} for c, lp in top]} for t, top in tokens]}
    return body


def test_first_token_scoring_sends_top_logprobs_and_renormalises(tmp_path):
    import math

    from cultalign.models import ScoreItem

    spec = _spec(unsupported_params=["temperature", "top_p"], batch_size=1)
    answer = [("Answer", [("Answer", -0.01)]), (":", [(":", -0.01)]),
              (" B", [(" B", math.log(0.6)), (" A", math.log(0.2)), (" I", math.log(0.1))])]
    fake = FakeServer([(200, _logprob_json(answer), None), (200, _logprob_json([("Sure", [("Sure", -0.1)])]), None)])
    client = ModelClient(spec, RequestCache(tmp_path, "m", writer="w"), backend=fake.backend(spec))
    assert client.scoring == "first_token"
    items = [ScoreItem.make("pick", ["Answer: A", "Answer: B"], labels=["A", "B"]),
             ScoreItem.make("yes?", ["Yes", "No"], labels=["Yes", "No"])]
    s1, s2 = client.score_options(items)
    body = json.loads(fake.requests[0].content)
    assert body["logprobs"] is True and body["top_logprobs"] == 20 and body["max_completion_tokens"] == 16
    assert "temperature" not in body  # the model's unsupported_params hold for scoring requests too
    assert s1.probs == pytest.approx([0.25, 0.75]) and s1.valid_mass == pytest.approx(0.8)
    assert s1.strategy == "first_token" and s1.missing == 0
    assert s2.missing == 2 and all(math.isnan(p) for p in s2.probs)
    again = client.score_options(items)  # cached: no request
    assert len(fake.requests) == 2 and again[0].cached and again[0].probs == pytest.approx(s1.probs)
    assert again[1].missing == 2
    with pytest.raises(ValueError, match="options have no labels"):
        client.score_options([ScoreItem.make("q", ["I agree", "I disagree"])])


def test_first_token_scoring_without_logprobs_in_the_reply_says_so():
    from cultalign.models import ScoreItem

    spec = _spec()
    fake = FakeServer([(200, _chat_json("Yes"), None)])
    client = ModelClient(spec, None, backend=fake.backend(spec))
    with pytest.raises(RuntimeError, match="returned no token log-probs.*scoring: none"):
        client.score_options([ScoreItem.make("q", ["Yes", "No"], labels=["Yes", "No"])])


def test_model_with_scoring_none_refuses_to_score():
    from cultalign.models import ScoreItem

    spec = _spec(scoring="none")
    client = ModelClient(spec, None, backend=FakeServer([]).backend(spec))
    with pytest.raises(NotImplementedError, match=r"models.m.scoring: none"):
        client.score_options([ScoreItem.make("q", ["Yes", "No"], labels=["Yes", "No"])])
