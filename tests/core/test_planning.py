"""Paper scale on paper (cultalign.planning): the arithmetic, counts that follow the config, and every
model rule of the paper DAG in the table."""

import copy
from pathlib import Path

import pandas as pd
import pytest

from cultalign.config import load_config
from cultalign.planning import Tokens, Work, gpu_hours, params_b, plan, table, throughput_of, totals

ROOT = Path(__file__).resolve().parents[2]
CLASSES = [{"max_params_b": 8, "generated_tokens_per_s": 1000.0}, {"max_params_b": 40, "generated_tokens_per_s": 500.0}]


def test_params_from_name_and_override():
    assert params_b("llama-3.1-70b-instruct") == 70
    assert params_b("qwen3-30b-a3b-instruct-2507") == 30
    assert params_b("qwen3-4b-base") == 4
    assert params_b("mistral-7b-instruct-v0.3") == 7
    assert params_b("gpt-oss-120b") == 120
    assert params_b("smollm2-135m-instruct") is None  # 135m is not billions
    assert params_b("odin-large") is None
    assert params_b("odin-large", {"odin-large": 12.5}) == 12.5


def test_throughput_class_is_the_first_that_holds_the_model():
    assert throughput_of(8, CLASSES)["generated_tokens_per_s"] == 1000.0
    assert throughput_of(8.5, CLASSES)["generated_tokens_per_s"] == 500.0
    assert throughput_of(4, list(reversed(CLASSES)))["max_params_b"] == 8  # order of the list does not matter
    with pytest.raises(ValueError, match="no planning.throughput class holds a model of 70B"):
        throughput_of(70, CLASSES)


def test_gpu_hours_formula():
    # 2 GPUs x (3,600,000 generated + 0.1 x 36,000,000 prompt) / 1000 tok/s / 3600 s = 2 x 7,200,000 / 3.6e6 = 4
    assert gpu_hours(2, 36_000_000, 3_600_000, 1000.0, 0.1) == pytest.approx(4.0)
    assert gpu_hours(1, 10, 0, 1000.0, 0.0) == 0.0
    with pytest.raises(ValueError):
        gpu_hours(1, 1, 1, 0.0, 0.1)


def test_table_and_totals():
    models = {"a-7b": {"backend": "vllm", "tensor_parallel_size": 1}, "b-30b": {"backend": "vllm",
                                                                            "tensor_parallel_size": 2},
              "api": {"backend": "openai"}}
    planning = {"throughput": CLASSES, "prompt_token_cost": 0.5, "params_b": {}}
    work = [Work("s", "r1", "a-7b", 4, 1000, 200.4, 10, "x"), Work("s", "r1", "b-30b", 4, 1000, 200.0, 10, "x"),
            Work("t", "r2", "api", 1, 50, 100.0, 20, "y")]
    df = table(work, models, planning)
    a, b, api = (df.iloc[i] for i in range(3))
    assert (a["requests"], a["prompt_tokens"], a["generated_tokens"]) == (1000, 200400, 10000)
    assert a["gpu_hours"] == pytest.approx(round((10000 + 0.5 * 200400) / 1000 / 3600, 2))
    assert b["gpus"] == 2 and b["generated_tokens_per_s"] == 500.0
    assert b["gpu_hours"] == pytest.approx(round(2 * (10000 + 0.5 * 200000) / 500 / 3600, 2))
    assert api["gpus"] == 0 and api["gpu_hours"] == 0.0 and api["generated_tokens"] == 1000
    t = totals(df)
    assert list(t["study"]) == ["s", "t", "all"]
    assert t.iloc[-1]["requests"] == 2050 and t.iloc[-1]["prompt_tokens"] == 200400 + 200000 + 5000
    with pytest.raises(ValueError, match="planning.params_b.mystery"):
        table([Work("s", "r", "mystery", 1, 1, 1, 1, "")], {"mystery": {"backend": "vllm"}}, planning)


class FakeTokenizer:
    """A stand-in tokenizer for counting logic only: one token per whitespace-separated word, a chat
    template that adds two tokens per message."""

    def __call__(self, s, add_special_tokens=False):
        return {"input_ids": list(range(len(s.split())))}

    def apply_chat_template(self, msgs, add_generation_prompt=True, tokenize=True):
        return list(range(sum(len(m["content"].split()) + 2 for m in msgs)))

    def decode(self, ids):
        return " ".join("w" for _ in ids)


@pytest.fixture(scope="module")
def paper_cfg():
    return load_config(ROOT / "config" / "config.yaml", ROOT / "config" / "paper.yaml")


def _rows(df, rule):
    return df[df["rule"] == rule].set_index("model")


def test_paper_counts_follow_the_config(paper_cfg):
    tk = Tokens(FakeTokenizer())
    df = plan(paper_cfg, tk)
    pact = paper_cfg["pact"]
    n_models = len(pact["models"]) + len(pact["comparison_models"])
    beh = _rows(df, "pact_behaviour")
    assert len(beh) == n_models
    # (2,633 + 4,007) scenarios x 48 instances x (3 configurations x 4 ablations x 2 system prompts),
    # generation and letter scoring
    assert (beh["requests"] == 318_720 * 24 * 2).all()
    # at most the visible budget each, and a reasoning model its reasoning reserve besides
    reserve = {m: paper_cfg["models"][m].get("reasoning_tokens", 0) for m in beh.index}
    assert reserve["gpt-5.4-mini"] > 0
    assert (beh["generated_tokens"] == [318_720 * 24 * (pact["behaviour"]["max_new_tokens"] + reserve[m])
                                        for m in beh.index]).all()
    mcs = _rows(df, "personas_mcs")
    items = 44 + 120 + 300 + 5000 + 500 + 500  # the baselines + CulturalPersonas (10 norms x 10 scenarios x 5)
    assert (mcs["requests"] == 6 * 2 * items).all() and (mcs["generated_tokens"] == 0).all()
    ans = _rows(df, "monopolet_answers")
    assert sorted(ans.index) == sorted(paper_cfg["monopolet"]["answer_models"])
    assert (ans["requests"] == 3023).all()
    assert list(_rows(df, "smoke_generate").index) == [paper_cfg["default_model"]]
    # construction by GPT-4o, the full-dataset judge by GPT-5.4-mini (section 3.2, appendix A.5)
    assert set(_rows(df, "pact_construct").index) == {"gpt-4o"}
    assert set(_rows(df, "pact_judge").index) == {"gpt-5.4-mini"}
    assert (df.loc[df["backend"] == "openai", "gpu_hours"] == 0).all()
    assert (df.loc[(df["backend"] == "vllm") & (df["rule"] != "smoke_generate"), "gpu_hours"] > 0).all()
    # a config change moves the counts: one more configuration, a third more behaviour prompts
    cfg = copy.deepcopy(paper_cfg)
    cfg["pact"]["behaviour"]["configurations"] = ["C1", "C2", "C3", "C4"]
    cfg["planning"]["input_sizes"]["monopolet"]["dilemmas"] = 100
    df2 = plan(cfg, tk)
    assert (_rows(df2, "pact_behaviour")["requests"] == 318_720 * 32 * 2).all()
    assert (_rows(df2, "monopolet_answers")["requests"] == 100).all()


@pytest.mark.slow
def test_every_model_rule_of_the_paper_dag_is_planned(paper_cfg, smollm2_dir, tmp_path):
    """The paper DAG (config/paper.yaml with stand-ins for the inputs a checkout lacks, dry run): each of
    its rules that calls a model has a row in the table, computed with SmolLM2's real tokenizer."""
    from workflow import model_rules, paper_stand_ins, planned_jobs, rules_of

    dag = rules_of(planned_jobs(ROOT, "--configfile", "config/paper.yaml", paper_stand_ins(tmp_path)))
    models = dag & model_rules()
    assert {"pact_behaviour", "personas_mcs", "monopolet_match", "smoke_generate"} <= models
    df = plan(paper_cfg, Tokens.from_dir(smollm2_dir))
    assert models <= set(df["rule"]), models - set(df["rule"])
    assert set(df["rule"]) <= model_rules()
    # the rendered prompts are real text: a PACT decision prompt is a few hundred tokens
    beh = df[df["rule"] == "pact_behaviour"].iloc[0]
    assert 150 < beh["prompt_tokens"] / beh["requests"] < 1000
    assert isinstance(totals(df), pd.DataFrame)


def test_smoke_model_is_the_named_default_model(paper_cfg):
    """The smoke test's model is config ``default_model`` (a name, never the first under
    ``models:``), which the rule also passes as its own param; the argument wins."""
    tk = Tokens(FakeTokenizer())
    second = list(paper_cfg["models"])[1]
    assert list(_rows(plan(paper_cfg, tk, second), "smoke_generate").index) == [second]
    assert list(_rows(plan({**paper_cfg, "default_model": second}, tk), "smoke_generate").index) == [second]
    assert list(_rows(plan(paper_cfg, tk), "smoke_generate").index) == [paper_cfg["default_model"]]


