"""Answer temperature per model (issue 11, item 10): the paper used each serving stack's defaults."""

import json

import pandas as pd
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


class FakeCutBackend:
    """Fake backend: answers with as many words as the dilemma asks for, each word one token; an
    answer longer than max_new_tokens is cut there with finish reason "length"."""

    def generate(self, prompts, params, schema=None, messages=None, seeds=None):
        from cultalign.models.types import Generation

        out = []
        for p in prompts:
            n = int(p.split("WORDS=")[1].split()[0])
            k = min(n, params.max_new_tokens)
            out.append(Generation(" ".join(["ord"] * k), "length" if n > params.max_new_tokens else "stop", 5, k))
        return out


def test_answers_cut_at_the_token_cap_are_counted():
    """The finish reason of each answer's final attempt reaches the answers table; the answer
    statistics count cut answers per model (the paper caps answers at 2,048 tokens)."""
    from cultalign.models import ModelClient, ModelSpec, SamplingParams
    from cultalign.monopolet.answers import answer_counts, generate_answers, is_truncated
    from cultalign.monopolet.response_stats import response_tables

    client = ModelClient(ModelSpec(name="fake", backend="transformers", chat_template="plain"),
                         backend=FakeCutBackend())
    dilemmas = pd.DataFrame({"dilemma_id": ["a", "b", "c"], "valid": True,
                             "dilemma": ["WORDS=5 kort", "WORDS=50 langt", "WORDS=8 lige"]})
    out = generate_answers(client, dilemmas, SamplingParams(temperature=0.0, max_new_tokens=8, seed=1))
    assert out["finish_reason"].tolist() == ["stop", "length", "stop"]
    assert out["completion_tokens"].tolist() == [5, 8, 8]
    assert out["truncated"].tolist() == [False, True, False]  # c stopped on its own at the cap
    assert answer_counts(dilemmas, out)["truncated"] == 1
    per_model, per_answer, counts = response_tables([out])
    assert counts["truncated"] == 1 and per_answer["truncated"].tolist() == [False, True, False]
    row = per_model.iloc[0]
    assert (row.n_truncated, row.n_all, row.n_invalid) == (1, 3, 0)
    assert row.truncated_share == pytest.approx(1 / 3)
    # without a finish reason, the token count against the cap decides
    assert is_truncated(None, 8, 8) and not is_truncated(None, 7, 8) and not is_truncated("stop", 8, 8)
