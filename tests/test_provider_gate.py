"""The rules of tests/provider_gate.py, the TEST DOUBLE of a hosted provider's request rules
(pure checks here; the proxy in front of a real vllm serve is in test_vllm_backend.py)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from provider_gate import GPT4O, GPT5_MINI, GPT54_MINI, violations  # noqa: E402

CHAT = "/v1/chat/completions"


def _params(v):
    return [p for p, _ in v]


def test_prompt_logprobs_and_echo_are_refused_for_every_family():
    assert _params(violations("/v1/completions", {"echo": True, "logprobs": 0}, GPT4O)) == ["echo"]
    assert _params(violations(CHAT, {"prompt_logprobs": 1}, GPT4O)) == ["prompt_logprobs"]
    assert violations("/v1/completions", {"prompt": "x", "max_tokens": 3}, GPT4O) == []


def test_top_logprobs_at_most_20_and_logprobs_only_where_given():
    assert violations(CHAT, {"logprobs": True, "top_logprobs": 20}, GPT4O) == []
    assert _params(violations(CHAT, {"logprobs": True, "top_logprobs": 21}, GPT4O)) == ["top_logprobs"]
    assert _params(violations(CHAT, {"logprobs": True, "top_logprobs": 5}, GPT5_MINI)) == ["logprobs"]
    assert violations(CHAT, {"logprobs": True, "top_logprobs": 5}, GPT54_MINI) == []


def test_gpt5_family_takes_only_default_sampling():
    assert _params(violations(CHAT, {"temperature": 0.3, "top_p": 0.9}, GPT54_MINI)) == ["temperature", "top_p"]
    assert _params(violations(CHAT, {"temperature": 0.0}, GPT5_MINI)) == ["temperature"]
    assert violations(CHAT, {"temperature": 1, "top_p": 1.0}, GPT5_MINI) == []
    assert violations(CHAT, {"temperature": 0.3, "top_p": 0.9}, GPT4O) == []


def test_structured_output_only_as_json_schema():
    ok = {"response_format": {"type": "json_schema", "json_schema": {"name": "r", "schema": {}}}}
    assert violations(CHAT, ok, GPT4O) == []
    assert _params(violations(CHAT, {"response_format": {"type": "json_object"}}, GPT4O)) == ["response_format"]
    assert _params(violations(CHAT, {"guided_json": {}}, GPT4O)) == ["guided_json"]


def test_family_rules_by_model_name():
    from provider_gate import DEFAULT, rules_for

    assert rules_for("gpt-5.4-mini") is GPT54_MINI
    assert rules_for("gpt-5-mini") is rules_for("gpt-5") is rules_for("gpt-5.2") is GPT5_MINI
    assert rules_for("gpt-4o-mini") is GPT4O
    assert rules_for("gemini-3-flash-preview").reasoning and rules_for("mistral-large") is DEFAULT
    # the rules every family shares hold for an unknown model too
    assert _params(violations(CHAT, {"logprobs": True, "top_logprobs": 50}, DEFAULT)) == ["top_logprobs"]


# -- a reasoning family spends hidden tokens before it writes ----------------------------
def test_reasoning_effort_only_for_a_reasoning_family():
    from provider_gate import GEMINI_THINKING

    assert _params(violations(CHAT, {"reasoning_effort": "low"}, GPT4O)) == ["reasoning_effort"]
    assert violations(CHAT, {"reasoning_effort": "low"}, GPT54_MINI) == []
    assert violations(CHAT, {"reasoning_effort": "low"}, GEMINI_THINKING) == []


def test_reasoning_plan_takes_the_hidden_tokens_from_the_budget():
    from provider_gate import reasoning_plan

    body = {"model": "gpt-5", "max_completion_tokens": 100, "reasoning_effort": "low"}
    assert reasoning_plan(body, GPT5_MINI, 30) == ({"model": "gpt-5", "max_completion_tokens": 70}, 30, False)
    assert reasoning_plan(body, GPT5_MINI, 100) == ({"model": "gpt-5", "max_completion_tokens": 1}, 100, True)
    assert reasoning_plan(body, GPT5_MINI, 500)[1:] == (100, True)  # never more than the budget
    assert reasoning_plan({"max_tokens": 10}, GPT5_MINI, 4) == ({"max_tokens": 6}, 4, False)
    assert reasoning_plan({"max_completion_tokens": 10}, GPT4O, 30) == ({"max_completion_tokens": 10}, 0, False)


def test_account_reasoning_reports_usage_as_the_provider_does():
    from provider_gate import account_reasoning

    up = {"choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "A"}}],
          "usage": {"prompt_tokens": 7, "completion_tokens": 1, "total_tokens": 8}}
    out = account_reasoning(up, 30, False)
    assert out["usage"] == {"prompt_tokens": 7, "completion_tokens": 31, "total_tokens": 38,
                            "completion_tokens_details": {"reasoning_tokens": 30}}
    assert out["choices"][0]["message"]["content"] == "A" and up["usage"]["completion_tokens"] == 1
    used_up = account_reasoning(up, 100, True)
    assert used_up["choices"][0]["finish_reason"] == "length"
    assert used_up["choices"][0]["message"]["content"] == ""
    assert used_up["usage"]["completion_tokens"] == 100


class FakeUpstream:
    """FAKE OpenAI-compatible server (stdlib): answers every chat completion with ``answer_words``
    words, cut to the request's max_completion_tokens (one word a token, finish_reason length)."""

    def __init__(self, answer_words: int):
        import json
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        fake = self
        self.bodies = []

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                fake.bodies.append(body)
                n = min(answer_words, int(body.get("max_completion_tokens") or answer_words))
                resp = {"id": "c", "object": "chat.completion", "created": 0, "model": body["model"],
                        "choices": [{"index": 0, "finish_reason": "length" if n < answer_words else "stop",
                                     "message": {"role": "assistant", "content": " ".join(["w"] * n)}}],
                        "usage": {"prompt_tokens": 5, "completion_tokens": n, "total_tokens": 5 + n}}
                data = json.dumps(resp).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def test_a_reasoning_model_through_the_gate_keeps_its_visible_answer_only_with_a_reserve(tmp_path):
    """The real openai backend and client, the gate spending 40 hidden tokens, a fake upstream
    writing 6-token answers: with the reserve the answer is whole and the usage reports the
    reasoning; without it (the issue's 16-token survey budget at 40 hidden tokens) it is empty."""
    from cultalign.models import ChatRequest, ModelClient, ModelSpec, SamplingParams
    from provider_gate import ProviderGate

    up = FakeUpstream(answer_words=6)
    gate = ProviderGate(up.url, reasoning_tokens=40)
    try:
        def client(reserve):
            spec = ModelSpec(name="gpt-5.4-mini", backend="openai", hub_id="gpt-5.4-mini", base_url=gate.base_url,
                             family="gpt-5",
                             reasoning_tokens=reserve, reasoning_effort="low", batch_size=1)
            return ModelClient(spec)

        req = [ChatRequest.make("q", SamplingParams(temperature=0.0, max_new_tokens=16))]
        ok = client(64)
        (g,) = ok.generate(req)
        assert (g.text, g.finish_reason, g.reasoning_tokens, g.completion_tokens) == ("w w w w w w", "stop", 40, 46)
        sent = gate.forwarded[-1][1]
        assert sent["max_completion_tokens"] == 80 and sent["reasoning_effort"] == "low"
        assert "temperature" not in sent and "reasoning_effort" not in up.bodies[-1]
        assert up.bodies[-1]["max_completion_tokens"] == 40
        assert ok.take_output_counts() == {"outputs": 1, "length_stopped": 0, "empty": 0, "cut": 0,
                                           "reasoning_tokens": 40}
        (cut,) = client(1).generate(req)  # 17 tokens: the reasoning takes them all
        assert (cut.text, cut.finish_reason, cut.reasoning_tokens) == ("", "length", 17)
    finally:
        gate.close()
        up.close()
