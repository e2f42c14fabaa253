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
    assert rules_for("gemini-3-flash-preview") is DEFAULT
    # the rules every family shares hold for an unknown model too
    assert _params(violations(CHAT, {"logprobs": True, "top_logprobs": 50}, DEFAULT)) == ["top_logprobs"]
