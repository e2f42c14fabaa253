"""Provider families and the token budgets of reasoning models (cultalign.models.families).

A model of a family with provider rules names its family (else the config fails at parse,
naming the key and the fix); a reasoning model's requests carry the visible budget plus its
reasoning reserve and its effort; the outputs behind each table are counted (length-stopped,
empty, cut, reasoning tokens) in its sidecar, and a table with too many cut outputs fails
before it is written.  The backend here is a FAKE (scripted generations); the openai backend
against the provider's test double is in tests/test_provider_gate.py.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest

from cultalign.config import ConfigError, load_config
from cultalign.core.provenance import read_sidecar
from cultalign.core.tables import write_table
from cultalign.models import ChatRequest, ModelClient, ModelSpec, RequestCache, SamplingParams
from cultalign.models.client import CutOutputsError, count_outputs, new_output_counts
from cultalign.models.families import FAMILIES, check_model_families, family_problems, matching_family
from cultalign.models.types import Generation

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def paper():
    return load_config(ROOT / "config" / "config.yaml", ROOT / "config" / "paper.yaml")


# -- families: declared once, named by each model ---------------------------------------
def test_a_model_of_a_known_family_that_names_none_fails_with_the_fix():
    entry = {"backend": "openai", "source": "api", "hub_id": "gpt-5-nano"}
    (msg,) = family_problems("nano", entry)
    assert "models.nano" in msg and "'gpt-5'" in msg and "set models.nano.family: gpt-5" in msg
    assert "models.nano.reasoning_tokens" in msg
    with pytest.raises(ConfigError, match=r"models\.nano: .*family: gpt-5"):
        check_model_families({"models": {"nano": entry}})
    # the same at load time (a client built outside the workflow)
    with pytest.raises(ValueError, match="set models.nano.family: gpt-5"):
        ModelSpec.from_config("nano", entry)
    # matched by the name, hub_id or the served name (api_model)
    assert matching_family("o4-mini", {}).name == "o-series"
    assert matching_family("x", {"hub_id": "openai/gpt-oss-20b"}).name == "gpt-oss"
    assert matching_family("x", {"api_model": "gemini-2.5-flash"}).name == "gemini"
    assert matching_family("gpt-4o-mini", {}) is None and matching_family("gemini-2.0-flash", {}) is None


@pytest.mark.parametrize("entry,want", [
    ({"family": "gpt-6"}, r"models\.m\.family: unknown provider family 'gpt-6'"),
    ({"family": "gpt-5"}, r"models\.m\.reasoning_tokens: family 'gpt-5' reasons"),
    ({"family": "gpt-5", "reasoning_tokens": 64, "reasoning_effort": "huge"},
     r"models\.m\.reasoning_effort: 'huge' is not an effort"),
    ({"reasoning_tokens": 64}, r"models\.m: reasoning_effort / reasoning_tokens apply"),
])
def test_family_settings_name_the_key(entry, want):
    problems = family_problems("m", {"backend": "openai", **entry})
    assert problems and re.search(want, problems[0]), problems


def test_paper_config_names_the_family_of_every_such_model(paper):
    check_model_families(paper)  # passes
    named = {n: m["family"] for n, m in paper["models"].items() if m.get("family")}
    assert named == {"gpt-5.4-mini": "gpt-5", "gpt-5-mini": "gpt-5", "gpt-5": "gpt-5",
                     "gpt-oss-20b": "gpt-oss", "gpt-oss-120b": "gpt-oss", "gemini-3-flash-preview": "gemini"}
    broken = copy.deepcopy(paper)
    del broken["models"]["gpt-5"]["family"]
    with pytest.raises(ConfigError, match="set models.gpt-5.family: gpt-5"):
        check_model_families(broken)


def test_family_refuses_its_parameters_and_reasoning_gets_its_reserve_and_effort():
    spec = ModelSpec.from_config("g", {"backend": "openai", "hub_id": "gpt-5", "family": "gpt-5",
                                       "reasoning_tokens": 1000, "reasoning_effort": "low"})
    assert spec.refused_params == ("temperature", "top_p") and spec.reasons
    p = SamplingParams(temperature=0.3, top_p=0.9, max_new_tokens=16, seed=2)
    assert spec.budget(16) == 1016 and spec.request_params(p).max_new_tokens == 1016
    assert spec.sent_params(p) == {"max_new_tokens": 1016, "stop": [], "seed": 2, "reasoning_effort": "low"}
    plain = ModelSpec.from_config("p", {"backend": "openai", "hub_id": "gpt-4o"})
    assert plain.budget(16) == 16 and plain.sent_params(p)["temperature"] == 0.3 and not plain.refused_params
    # on an open-weights backend the family's reasoning counts, provider refusals do not apply
    oss = ModelSpec.from_config("o", {"backend": "vllm", "hub_id": "openai/gpt-oss-20b", "family": "gpt-oss",
                                      "reasoning_tokens": 100})
    assert oss.budget(64) == 164 and oss.refused_params == ()


# -- the paper's budgets leave room for the visible answer -------------------------------
# the visible budget each reasoning model gets, by config key (the rules that call it)
VISIBLE = {
    "gpt-5.4-mini": ["pact.behaviour.max_new_tokens", "pact.alignment.max_new_tokens"],
    "gpt-5-mini": ["monopolet.extraction.max_new_tokens"],
    "gpt-5": ["monopolet.answers.max_new_tokens"],
    "gemini-3-flash-preview": ["monopolet.answers.max_new_tokens"],
    "gpt-oss-20b": ["monopolet.mapping.max_new_tokens"],
    "gpt-oss-120b": ["monopolet.extraction.max_new_tokens"],
}


def _get(cfg, dotted):
    for part in dotted.split("."):
        cfg = cfg[part]
    return cfg


def test_paper_budgets_reserve_reasoning_beside_the_visible_answer(paper):
    reasoning = {n for n, m in paper["models"].items() if m.get("family") and FAMILIES[m["family"]].reasoning}
    assert reasoning == set(VISIBLE)
    for name, keys in VISIBLE.items():
        spec = ModelSpec.from_config(name, paper["models"][name])
        assert spec.reasoning_tokens >= 2048, name  # a short answer after medium effort needs ~1-2k
        for key in keys:
            visible = _get(paper, key)
            assert spec.budget(visible) == visible + spec.reasoning_tokens
            if spec.backend != "openai":  # the engine's context holds the prompt and the whole budget
                assert spec.budget(visible) <= spec.max_context // 2, (name, key)
    # the visible answers the issue named: PACT behaviour 128 and the survey 16 (gpt-5.4-mini),
    # monopolet answers 2,048 (gpt-5): each now has thousands of tokens besides them
    mini = ModelSpec.from_config("gpt-5.4-mini", paper["models"]["gpt-5.4-mini"])
    assert mini.budget(paper["pact"]["alignment"]["max_new_tokens"]) > 16 + 2000
    # the solutions' JSON: up to max_solutions actions of max_action_chars (~4 characters a token)
    ex = paper["monopolet"]["extraction"]
    assert ex["max_new_tokens"] >= ex["max_solutions"] * ex["max_action_chars"] / 4


def test_rehearsal_reserves_more_than_the_gate_spends():
    rehearsal = load_config(ROOT / "config" / "config.yaml", ROOT / "config" / "paper.yaml",
                            ROOT / "config" / "rehearsal.yaml")
    check_model_families(rehearsal)
    spend = int(re.search(r"REHEARSAL_REASONING_TOKENS:-(\d+)", (ROOT / "setup" / "rehearsal.sh").read_text())[1])
    for name, m in rehearsal["models"].items():
        if m.get("backend") == "openai" and m.get("family") and FAMILIES[m["family"]].reasoning:
            assert m["reasoning_tokens"] > spend, name  # the stand-in still gets its visible budget


# -- outputs behind a table: counted, and too many cut fails --------------------------------
class FakeBackend:
    """FAKE backend: answers each prompt with the next scripted (text, finish_reason, reasoning tokens)."""

    def __init__(self, script):
        self.script = list(script)
        self.budgets = []

    def generate(self, prompts, params, schema=None, messages=None, seeds=None):
        self.budgets.append(params.max_new_tokens)
        out = []
        for _ in prompts:
            text, finish, hidden = self.script.pop(0)
            out.append(Generation(text, finish, 3, len(text.split()) + (hidden or 0), reasoning_tokens=hidden))
        return out


def _client(tmp_path, script, reasons=True, share=0.05):
    cfg = {"backend": "openai", "hub_id": "gpt-5", "family": "gpt-5", "reasoning_tokens": 100} if reasons else \
        {"backend": "openai", "hub_id": "gpt-4o"}
    spec = ModelSpec.from_config("m", cfg)
    return ModelClient(spec, RequestCache(tmp_path / "cache", "m", writer="w"), backend=FakeBackend(script),
                       max_cut_share=share)


def _reqs(n):
    return [ChatRequest.make(f"q{i}", SamplingParams(max_new_tokens=8)) for i in range(n)]


def test_counts_and_sidecar_of_a_reasoning_model(tmp_path):
    import pandas as pd

    script = [("A", "stop", 40)] * 19 + [("", "length", 108)]
    client = _client(tmp_path, script)
    gens = client.generate(_reqs(20))
    assert set(client.backend.budgets) == {108} and gens[0].reasoning_tokens == 40  # 8 visible + 100
    write_table(pd.DataFrame({"x": [1]}), tmp_path / "t.tsv", client=client)  # 1 of 20 cut: 5% passes
    side = read_sidecar(tmp_path / "t.tsv")
    assert side["outputs"] == {"outputs": 20, "length_stopped": 1, "empty": 1, "cut": 1,
                               "reasoning_tokens": 19 * 40 + 108}
    assert side["model"]["family"] == "gpt-5" and side["model"]["reasoning_tokens"] == 100
    # the next table counts its own outputs, from the cache too
    client.generate(_reqs(2))
    assert client.take_output_counts()["outputs"] == 2


def test_a_table_with_too_many_cut_outputs_fails_before_it_is_written(tmp_path):
    import pandas as pd

    client = _client(tmp_path, [("A", "stop", 40)] * 18 + [("Because the", "length", 90)] * 2)
    client.generate(_reqs(20))
    with pytest.raises(CutOutputsError, match=r"2 of 20 outputs .* model_outputs.max_cut_share = 0.05; "
                                              r"raise models.m.reasoning_tokens"):
        write_table(pd.DataFrame({"x": [1]}), tmp_path / "t.tsv", client=client)
    assert not (tmp_path / "t.tsv").exists()


def test_length_stops_of_a_model_that_does_not_reason_are_counted_not_failed(tmp_path):
    import pandas as pd

    # a label answer within a deliberately short budget: stopped after the label, not cut
    client = _client(tmp_path, [("B because", "length", None)] * 10, reasons=False)
    client.generate(_reqs(10))
    write_table(pd.DataFrame({"x": [1]}), tmp_path / "t.tsv", client=client)
    assert read_sidecar(tmp_path / "t.tsv")["outputs"]["length_stopped"] == 10
    assert read_sidecar(tmp_path / "t.tsv")["outputs"]["cut"] == 0
    # an empty answer at the budget is cut whatever the model
    counts = count_outputs(new_output_counts(), [Generation("  ", "length")], reasons=False)
    assert counts["cut"] == counts["empty"] == 1


def test_reasoning_tokens_and_finish_reason_reach_the_cache(tmp_path):
    client = _client(tmp_path, [("A", "length", 100)])
    client.generate(_reqs(1))
    again = _client(tmp_path, [])
    (g,) = again.generate(_reqs(1))
    assert g.cached and g.finish_reason == "length" and g.reasoning_tokens == 100
    assert again.take_output_counts()["cut"] == 1  # a cached cut output still counts for its table


def test_planning_counts_the_reasoning_reserve_of_local_reasoning_models():
    from cultalign.planning import Work, table

    planning = {"throughput": [{"max_params_b": 200, "generated_tokens_per_s": 1000.0}], "prompt_token_cost": 0.0}
    models = {"gpt-oss-20b": {"backend": "vllm", "family": "gpt-oss", "reasoning_tokens": 2048},
              "llama-8b": {"backend": "vllm"}}
    rows = table([Work("s", "r", "gpt-oss-20b", 1, 10, 100.0, 64, ""), Work("s", "r", "llama-8b", 1, 10, 100.0, 64, ""),
                  Work("s", "score", "gpt-oss-20b", 1, 10, 100.0, 0, "")], models, planning)
    assert rows["generated_tokens"].tolist() == [10 * (64 + 2048), 10 * 64, 0]


def test_gathered_shards_sum_their_output_counts(tmp_path):
    import pandas as pd

    from cultalign.monopolet.gathering import shared_provenance

    paths = []
    for k, script in enumerate(([("A", "stop", 5), ("", "length", 9)], [("B", "stop", 7)])):
        client = _client(tmp_path / str(k), script, share=None)
        client.generate(_reqs(len(script)))
        paths.append(write_table(pd.DataFrame({"x": [k]}), tmp_path / f"part{k}.tsv", client=client))
    assert shared_provenance(paths)["outputs"] == {"outputs": 3, "length_stopped": 1, "empty": 1, "cut": 1,
                                                   "reasoning_tokens": 21}


def test_report_page_lists_the_outputs_behind_each_model_table(tmp_path):
    import pandas as pd

    from cultalign.core.output_counts import output_count_rows
    from cultalign.core.provenance import write_sidecar

    results = tmp_path / "results"
    (results / "a").mkdir(parents=True)
    client = _client(tmp_path, [("A", "stop", 5), ("", "length", 108)], share=None)
    client.generate(_reqs(2))
    write_table(pd.DataFrame({"x": [1]}), results / "a" / "model.tsv", client=client)
    write_table(pd.DataFrame({"x": [1]}), results / "plain.tsv")  # no model: not listed
    gathered = write_table(pd.DataFrame({"x": [1]}), results / "gathered.tsv")  # repeats its shards' counts
    write_sidecar(gathered, extra={"shards": 2, "outputs": {"outputs": 2, "cut": 1}})
    rows = output_count_rows(results)
    assert rows.to_dict("records") == [{"table": str(results / "a" / "model.tsv"), "rule": "", "model": "m",
                                        "family": "gpt-5", "outputs": 2, "length_stopped": 1, "empty": 1, "cut": 1,
                                        "reasoning_tokens": 113, "cut_share": 0.5}]
    assert output_count_rows(results, exclude=[results / "a" / "model.tsv"]).empty
