"""Option-scoring capabilities: strategy defaults, first-token renormalisation, and the
parse-time check that stops a config asking a model for scoring it cannot do."""

from __future__ import annotations

import copy
import math
import subprocess
import sys
from pathlib import Path

import pytest

from cultalign.config import ConfigError, load_config
from cultalign.models import ModelSpec, ScoreItem
from cultalign.models.capabilities import (
    answer_position,
    first_token_scores,
    label_problem,
)
from cultalign.scoring_check import check_scoring

ROOT = Path(__file__).resolve().parents[2]
LN = math.log


# -- strategy of a model ------------------------------------------------------------------
@pytest.mark.parametrize("entry,expected", [
    ({"backend": "transformers"}, "full"),
    ({"backend": "vllm"}, "full"),
    ({"backend": "openai"}, "first_token"),  # hosted API
    ({"backend": "openai", "base_url": "https://api.example/v1"}, "first_token"),  # no local tokenizer
    ({"backend": "openai", "base_url": "http://127.0.0.1:8000/v1", "path": "m"}, "full"),  # vllm serve
    ({"backend": "openai", "base_url": "http://127.0.0.1:8000/v1", "path": "m",
      "prompt_logprobs": False}, "first_token"),
    ({"backend": "openai", "prompt_logprobs": True}, "full"),
    ({"backend": "openai", "scoring": "none"}, "none"),
    ({"backend": "vllm", "scoring": "first_token"}, "first_token"),
])
def test_scoring_default_by_backend_and_explicit_key(entry, expected):
    assert ModelSpec.from_config("m", entry).scoring_strategy == expected


def test_bad_scoring_and_unsupported_params_name_the_key():
    with pytest.raises(ValueError, match=r"models.m.scoring"):
        ModelSpec.from_config("m", {"backend": "openai", "scoring": "top_k"})
    with pytest.raises(ValueError, match=r"models.m.unsupported_params: \['max_tokens'\]"):
        ModelSpec.from_config("m", {"backend": "openai", "unsupported_params": ["max_tokens"]})
    with pytest.raises(ValueError, match=r"openai backend only"):
        ModelSpec.from_config("m", {"backend": "vllm", "unsupported_params": ["temperature"]})


# -- first-token renormalisation ----------------------------------------------------------------
def test_first_token_renormalises_over_labels_and_reports_mass():
    top = [("A", [("A", LN(0.6)), ("B", LN(0.2)), ("The", LN(0.1)), (" A", LN(0.05))])]
    sc = first_token_scores(top, ["A", "B"])
    assert sc.strategy == "first_token" and sc.missing == 0
    assert sc.logprobs[0] == pytest.approx(LN(0.65))  # "A" and " A" are the same label
    assert sc.valid_mass == pytest.approx(0.85)
    assert sc.probs == pytest.approx([0.65 / 0.85, 0.2 / 0.85])


def test_label_outside_top_k_is_minus_inf_and_counted():
    sc = first_token_scores([("Yes", [("Yes", LN(0.9)), ("Sure", LN(0.05))])], ["Yes", "No"])
    assert sc.logprobs[1] == -math.inf and sc.missing == 1
    assert sc.probs == [1.0, 0.0]
    assert sc.valid_mass == pytest.approx(0.9)


def test_no_label_in_top_k_gives_nan_probabilities():
    sc = first_token_scores([("Well", [("Well", LN(0.7)), ("I", LN(0.2))])], ["Yes", "No"])
    assert sc.missing == 2 and sc.valid_mass == 0.0
    assert all(math.isnan(p) for p in sc.probs)


def test_answer_token_after_the_options_prefix():
    toks = [("Answer", [("Answer", -0.1)]), (":", [(":", -0.01)]),
            (" B", [(" B", LN(0.7)), (" A", LN(0.3))]), (".", [(".", -0.1)])]
    sc = first_token_scores(toks, ["A", "B"], prefix="Answer: ")
    assert sc.probs == pytest.approx([0.3, 0.7])
    # the answer departs from the prefix, or ends before the answer token: invalid, all missing
    assert first_token_scores([("I", [("I", -0.1)]), (" think", [])], ["A", "B"], "Answer: ").missing == 2
    assert answer_position(["Answer", ":"], "Answer: ") is None
    assert answer_position(["Ans", "wer:", " A"], "Answer:") == 2
    assert answer_position(["Yes"], "") == 0


def test_score_item_labels_must_end_the_options():
    it = ScoreItem.make("q", ["Answer: A", "Answer: B"], labels=["A", "B"])
    assert it.prefix == "Answer: " and it.labels == ("A", "B")
    assert ScoreItem.make("q", ["Yes", "No"], labels=["Yes", "No"]).prefix == ""
    with pytest.raises(ValueError, match="shared prefix"):
        ScoreItem.make("q", ["Answer: A", "Option B"], labels=["A", "B"])
    with pytest.raises(ValueError, match="distinct"):
        ScoreItem.make("q", ["A", "A"], labels=["A", "A"])
    assert label_problem(None) and label_problem(["agree strongly", "no"]) and label_problem(["a", "A"])
    assert label_problem(["Ja", "Nej"]) is None


# -- the parse-time check -------------------------------------------------------------------
@pytest.fixture(scope="module")
def paper():
    return load_config(ROOT / "config" / "config.yaml", ROOT / "config" / "paper.yaml")


def test_paper_config_passes_and_api_models_score_by_first_token(paper):
    used = check_scoring(copy.deepcopy(paper))
    assert used["gpt-5.4-mini"] == used["gpt-4o"] == "first_token"
    assert used["llama-3.1-8b-instruct"] == used["qwen2-7b-instruct"] == "full"
    assert "gpt-4o-mini" not in used  # personas.mcs.exclude: it scores no options (OEG only)
    # the GPT-5 family refuses temperature and top_p (models.<m>.family, cultalign.models.families)
    for name in ("gpt-5.4-mini", "gpt-5-mini"):
        spec = ModelSpec.from_config(name, paper["models"][name])
        assert spec.refused_params == ("temperature", "top_p")


def test_model_that_cannot_score_fails_naming_model_rule_and_key(paper):
    cfg = copy.deepcopy(paper)
    cfg["models"]["gpt-5.4-mini"]["scoring"] = "none"
    with pytest.raises(ConfigError) as e:
        check_scoring(cfg)
    msg = str(e.value)
    assert "rule pact_behaviour: model 'gpt-5.4-mini'" in msg
    assert "'pact.behaviour.logprob (model at pact.models[5])'" in msg
    assert "models.gpt-5.4-mini.scoring: none" in msg
    cfg["pact"]["behaviour"]["logprob"] = False  # the rule no longer scores: fine
    check_scoring(cfg)


def test_first_token_model_asked_for_whole_option_texts_fails(paper):
    cfg = copy.deepcopy(paper)
    cfg["personas"]["mcs"]["exclude"] = {}  # GPT-4o-mini back in MCS, scored like the others
    with pytest.raises(ConfigError) as e:
        check_scoring(cfg)
    msg = str(e.value)
    assert "rule personas_mcs: model 'gpt-4o-mini'" in msg and "rule personas_release_mcs" in msg
    assert "'personas.mcs.score = 'text' (model at personas.models[0])'" in msg
    assert "options have no labels" in msg
    assert "meta-llama-3-8b-instruct" not in msg  # full scoring models can score texts


def test_strategy_the_backend_cannot_run_fails(paper):
    cfg = copy.deepcopy(paper)
    cfg["models"]["gpt-4o"]["scoring"] = "full"  # hosted: no prompt log-probs, no local tokenizer
    cfg["models"]["gpt-oss-20b"]["scoring"] = "first_token"  # a vLLM model
    cfg["monopolet"]["mapping"]["check"] = "score"  # the paper config generates its check
    with pytest.raises(ConfigError) as e:
        check_scoring(cfg)
    msg = str(e.value)
    assert "rule personas_norms: model 'gpt-4o'" in msg and "models.gpt-4o.path, which is not set" in msg
    assert "rule monopolet_sections: model 'gpt-oss-20b'" in msg and "only the openai backend does" in msg


def test_mcs_scores_every_model_one_way_and_excluded_models_leave_it(paper):
    # section 4.3.1 / Figure 10: MCS on Llama3 and Qwen2 by whole-option log-probs; GPT-4o-mini (first-token
    # label log-probs only) leaves MCS with a stated reason instead of mixing two methods in Tables 2 and 6
    from cultalign.personas.evaluate import mcs_models
    from cultalign.scoring_check import scoring_uses

    assert mcs_models(paper["personas"]) == ["meta-llama-3-8b-instruct", "qwen2-7b-instruct"]
    assert "OEG only" in paper["personas"]["mcs"]["exclude"]["gpt-4o-mini"]
    mcs = {u.model for u in scoring_uses(paper) if u.rule == "personas_mcs"}
    assert mcs == {"meta-llama-3-8b-instruct", "qwen2-7b-instruct"}
    check_scoring(paper)
    cfg = copy.deepcopy(paper)
    cfg["personas"]["mcs"]["exclude"] = {}
    cfg["personas"]["mcs"]["score_by_model"] = {"gpt-4o-mini": "label"}  # the letters: it can, but differently
    with pytest.raises(ConfigError) as e:
        check_scoring(cfg)
    msg = str(e.value)
    assert "'personas.mcs.exclude': the MCS models are scored in different ways" in msg
    assert "gpt-4o-mini: first_token log-probs of the option letters" in msg
    assert "qwen2-7b-instruct: full log-probs of the option texts" in msg
    cfg["personas"]["mcs"]["exclude"] = {"gpt-4o-mni": "typo"}
    with pytest.raises(ConfigError, match=r"'personas.mcs.exclude.gpt-4o-mni': 'gpt-4o-mni' is not one of"):
        check_scoring(cfg)


def test_score_by_model_names_an_evaluated_model(paper):
    cfg = copy.deepcopy(paper)
    cfg["personas"]["mcs"]["score_by_model"]["gpt-4o-mni"] = "label"
    with pytest.raises(ConfigError, match=r"'personas.mcs.score_by_model.gpt-4o-mni': 'gpt-4o-mni' is not one of"):
        check_scoring(cfg)


def test_first_token_default_config_model_fails_for_text_mcs():
    cfg = load_config(ROOT / "config" / "config.yaml")
    cfg["models"]["smollm2-135m-instruct"].update(backend="openai", path=None)  # as if hosted: first_token
    with pytest.raises(ConfigError, match="personas.mcs.score = 'text'"):
        check_scoring(cfg)
    cfg["personas"]["mcs"]["score"] = "label"
    assert check_scoring(cfg) == {"smollm2-135m-instruct": "first_token"}


@pytest.mark.slow
def test_snakemake_parse_fails_before_any_job(tmp_path):
    over = tmp_path / "over.yaml"
    over.write_text("models:\n  smollm2-135m-instruct:\n    scoring: none\n")
    out = subprocess.run([sys.executable, "-m", "snakemake", "-n", "--cores", "1", "--configfile",
                          "config/config.yaml", str(over), "--directory", str(ROOT)],
                         capture_output=True, text=True, cwd=ROOT)
    text = out.stdout + out.stderr
    assert out.returncode != 0
    assert "rule pact_behaviour: model 'smollm2-135m-instruct'" in text
    assert "rule monopolet_sections" in text and "'monopolet.mapping.model'" in text
    assert "Job stats" not in out.stdout
