"""Answer temperature per model (issue 11, item 10): the paper used each serving stack's defaults."""

import json

import pytest

from cultalign.models import ModelSpec
from cultalign.models.openai_backend import chat_request
from cultalign.monopolet.answers import answer_setup, answer_temperature, stack_default_sampling

LLM = {"cache_dir": None, "retry": {"temperature": 0.7, "max_attempts": 2}}


def llm(name, **spec):
    return {**LLM, "name": name, "spec": spec}


def test_per_model_temperature_overrides_the_global_one():
    section = {"max_new_tokens": 8, "temperature": 0.3, "temperature_by_model": {"a": 0.9, "b": None}}
    assert answer_temperature(section, "a") == 0.9
    assert answer_temperature(section, "b") is None
    assert answer_temperature(section, "c") == 0.3
    with pytest.raises(ValueError, match="temperature_by_model.a"):
        answer_temperature({"temperature": 0.0, "temperature_by_model": {"a": "hot"}}, "a")


def test_null_on_openai_sends_no_temperature():
    section = {"max_new_tokens": 8, "temperature": None}
    model, params, record = answer_setup(section, llm("api", backend="openai", hub_id="m"), seed=3)
    spec = ModelSpec.from_config("api", model["spec"])
    kw = chat_request("m", [{"role": "user", "content": "hej"}], params, None, spec.unsupported_params)
    assert "temperature" not in kw and "top_p" not in kw
    assert record["temperature"] is None and "not sent" in record["source"]
    # a number is sent as configured
    model, params, _ = answer_setup({**section, "temperature_by_model": {"api": 0.4}},
                                    llm("api", backend="openai", hub_id="m"), seed=3)
    kw = chat_request("m", [], params, None, ModelSpec.from_config("api", model["spec"]).unsupported_params)
    assert kw["temperature"] == 0.4


def test_vllm_default_reads_generation_config(tmp_path):
    (tmp_path / "generation_config.json").write_text(json.dumps({"temperature": 0.6, "top_p": 0.9}))
    section = {"max_new_tokens": 8, "temperature": None}
    _, params, record = answer_setup(section, llm("v", backend="vllm", path=str(tmp_path)), seed=1)
    assert (params.temperature, params.top_p) == (0.6, 0.9)
    assert record["source"].startswith("vllm default")
    bare = tmp_path / "bare"
    bare.mkdir()
    assert stack_default_sampling({"backend": "vllm", "path": str(bare)})[:2] == (1.0, 1.0)


def test_transformers_default_is_greedy_unless_do_sample(tmp_path):
    (tmp_path / "generation_config.json").write_text(json.dumps({"do_sample": False, "temperature": 0.7}))
    assert stack_default_sampling({"backend": "transformers", "path": str(tmp_path)})[0] == 0.0
    (tmp_path / "generation_config.json").write_text(json.dumps({"do_sample": True, "temperature": 0.7}))
    assert stack_default_sampling({"backend": "transformers", "path": str(tmp_path)})[0] == 0.7


def test_paper_config_uses_stack_defaults():
    import yaml

    paper = yaml.safe_load(open("config/paper.yaml"))
    section = paper["monopolet"]["answers"]
    for name in paper["monopolet"]["answer_models"]:
        if name not in (section.get("temperature_by_model") or {}):
            assert answer_temperature(section, name) is None, name
