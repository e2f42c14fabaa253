"""Your own model (cultalign.my_model, config/my-model.yaml): it joins each study's model list,
errors name the key, a study it cannot run is skipped with the reason, and the planning rows it adds."""

import copy
from pathlib import Path

import pytest

from cultalign.config import ConfigError, load_config
from cultalign.my_model import added_rows, apply_my_model, card_skips, my_model_name, without_model
from cultalign.planning import Tokens, plan
from core.test_planning import FakeTokenizer  # a stand-in tokenizer for counting logic only

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "config" / "my-model.yaml"


@pytest.fixture(scope="module")
def paper_with_mine():
    return load_config(ROOT / "config" / "config.yaml", ROOT / "config" / "paper.yaml", TEMPLATE)


def test_template_model_joins_every_study_list_last(paper_with_mine):
    cfg = copy.deepcopy(paper_with_mine)
    before = {s: list(cfg[s][k]) for s, k in (("pact", "models"), ("personas", "models"),
                                                ("monopolet", "answer_models"))}
    assert apply_my_model(cfg) == "my-model"
    for study, key in (("pact", "models"), ("personas", "models"), ("monopolet", "answer_models")):
        assert cfg[study][key] == before[study] + ["my-model"], study  # last: a role's default (the first) stays
    assert card_skips(cfg) == {}


def test_template_keeps_the_papers_default_model(paper_with_mine):
    """The template's model comes after the paper's models: the default model (smoke test) stays the paper's."""
    paper = load_config(ROOT / "config" / "config.yaml", ROOT / "config" / "paper.yaml")
    assert next(iter(paper_with_mine["models"])) == next(iter(paper["models"]))


def test_unknown_name_names_its_key_and_a_study_left_out_of_studies_is_skipped(paper_with_mine):
    cfg = copy.deepcopy(paper_with_mine)
    cfg["my_model"]["name"] = "not-declared"
    with pytest.raises(ConfigError, match="config key 'my_model.name': 'not-declared' is not declared"):
        apply_my_model(cfg)
    # the default my_model.studies names all three: a run of fewer studies leaves the others out,
    # with the reason on the card, and adds the model to no list of theirs
    cfg = copy.deepcopy(paper_with_mine)
    cfg["studies"] = ["pact", "personas"]
    answers = list(cfg["monopolet"]["answer_models"])
    apply_my_model(cfg)
    assert cfg["monopolet"]["answer_models"] == answers
    assert card_skips(cfg)["monopolet"].startswith("the study is not under `studies`")


def test_a_study_it_cannot_run_is_skipped_with_the_reason(paper_with_mine):
    cfg = copy.deepcopy(paper_with_mine)
    cfg["models"]["my-model"]["scoring"] = "none"
    cfg["monopolet"]["manifest"] = None
    cfg["my_model"]["studies"] = ["personas", "monopolet"]
    skips = card_skips(cfg)
    assert "no option log-probs (models.my-model.scoring: none)" in skips["personas"]
    assert "no episodes: monopolet.manifest is null" in skips["monopolet"]
    assert skips["pact"] == "not in my_model.studies"
    pact, personas = list(cfg["pact"]["models"]), list(cfg["personas"]["models"])
    apply_my_model(cfg)
    assert cfg["pact"]["models"] == pact and cfg["personas"]["models"] == personas  # added nowhere
    assert "my-model" not in cfg["monopolet"]["answer_models"]


def test_null_name_is_the_default_model_and_adds_nothing():
    cfg = load_config(ROOT / "config" / "config.yaml")
    assert cfg["my_model"]["name"] is None
    before = copy.deepcopy(cfg)
    assert apply_my_model(cfg) == my_model_name(cfg) == "smollm2-135m-instruct"
    assert cfg == before
    assert card_skips(cfg) == {}  # the embedded default runs its default model in all three studies
    paper = load_config(ROOT / "config" / "config.yaml", ROOT / "config" / "paper.yaml")
    first = my_model_name(paper)
    skips = card_skips(paper)
    assert apply_my_model(copy.deepcopy(paper)) == first
    for study, (section, key) in {"personas": ("personas", "models"),
                                  "monopolet": ("monopolet", "answer_models")}.items():
        if first not in paper[section][key]:
            assert f"not in {section}.{key}" in skips[study]


def test_explicit_comparisons_get_the_models_comparison(paper_with_mine):
    cfg = copy.deepcopy(paper_with_mine)
    cfg["monopolet"]["comparisons"] = ["gpt-5_vs_panel"]
    apply_my_model(cfg)
    assert cfg["monopolet"]["comparisons"] == ["gpt-5_vs_panel", "my-model_vs_panel"]


def test_planning_rows_the_model_adds(paper_with_mine):
    cfg = copy.deepcopy(paper_with_mine)
    apply_my_model(cfg)
    cfg["default_model"] = next(iter(cfg["models"]))
    tk = Tokens(FakeTokenizer())
    full = plan(cfg, tk)
    mine = added_rows(full, plan(without_model(cfg, "my-model"), tk))
    own = mine[mine["model"] == "my-model"].set_index("rule")
    assert {"pact_behaviour", "pact_survey", "personas_mcs", "personas_oeg", "monopolet_answers"} <= set(own.index)
    # its own rows are the full plan's rows of the model, unchanged
    ref = full[full["model"] == "my-model"].set_index("rule")
    assert (own["requests"] == ref.loc[own.index, "requests"]).all()
    assert (own["gpu_hours"] > 0).all()  # a 7.6B vLLM model (planning.params_b in the template)
    # the extraction of its Danish-norms answers and their judging run on other models: one agent's
    # and one comparison's share of those rules
    other = mine[mine["model"] != "my-model"].set_index("rule")
    assert set(other.index) == {"monopolet_solutions", "monopolet_match"}
    sol = full[full["rule"] == "monopolet_solutions"].iloc[0]
    agents = 1 + len(cfg["monopolet"]["answer_models"])
    assert other.loc["monopolet_solutions", "requests"] == pytest.approx(sol["requests"] / agents, rel=0.01)
    # no paper model's own rule is in the rows
    assert not ((mine["model"] != "my-model") & mine["rule"].isin(["pact_behaviour", "monopolet_answers"])).any()


def test_a_benchmark_that_is_not_there_skips_its_study(paper_with_mine, tmp_path):
    """Without the papers' private inputs: PACT needs its constructed benchmark or sources, CulturalPersonas
    its CP items, a corpus, or the published release."""
    cfg = copy.deepcopy(paper_with_mine)
    skips = card_skips(cfg, base=tmp_path)
    assert "pact.sources.cultureatlas.path" in skips["pact"]  # no download URL, no file
    assert "personas" not in skips  # the published release, downloaded at its pinned commit
    generated = copy.deepcopy(paper_with_mine)
    generated["personas"]["cp_source"] = "generated"
    why = card_skips(generated, base=tmp_path)["personas"]
    assert "personas.corpus.folders.usa" in why and "personas.cp_source: release" in why
    assert "monopolet" not in skips  # the demo episodes, marked SYNTHETIC in paper.yaml
    pact = list(cfg["pact"]["models"])
    apply_my_model(cfg, base=tmp_path)
    assert cfg["pact"]["models"] == pact  # not added where it would not run

    # a benchmark from a paper-scale run, and the published release
    (tmp_path / "results/pact/construct").mkdir(parents=True)
    (tmp_path / "results/pact/construct/instances.tsv").write_text("x\n")
    cfg = copy.deepcopy(paper_with_mine)
    cfg["personas"]["cp_source"] = "release"
    cfg["personas"]["release"]["path"] = "release"
    assert "release.path (release) is neither there" in card_skips(cfg, base=tmp_path)["personas"]
    (tmp_path / "release").mkdir()
    assert card_skips(cfg, base=tmp_path) == {}


def test_release_layer_runs_personas_on_the_published_release_where_it_is(tmp_path):
    cfg = load_config(ROOT / "config" / "config.yaml", ROOT / "config" / "my-model-release.yaml")
    assert cfg["personas"]["cp_source"] == "release"
    release = cfg["personas"]["release"]["path"]
    # the workflow's folder without the shared data: CulturalPersonas is skipped, naming the key
    assert f"personas.release.path ({release}) is neither there" in card_skips(cfg, base=tmp_path / "repo")["personas"]
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / release).mkdir(parents=True)
    assert "personas" not in card_skips(cfg, base=tmp_path / "repo")
