"""One ModelSpec per model: made once from the validated config, used by the parse-time checks and,
rebuilt from the rule's param, by the job's client; every key the code reads is a schema key."""

from __future__ import annotations

import copy
from pathlib import Path
from types import SimpleNamespace

import pytest

from cultalign.config import ConfigError, load_config, model_gpus, validate_config
from cultalign.core.provenance import canonical
from cultalign.models import ModelSpec
from cultalign.models.client import llm_param, open_client
from cultalign.models.types import EXTRA_MOVED, model_specs
from cultalign.scoring_check import check_scoring

ROOT = Path(__file__).resolve().parents[2]
LAYERS = {
    "config.yaml": (),
    "paper.yaml": ("paper.yaml",),
    "rehearsal.yaml": ("paper.yaml", "rehearsal.yaml"),
}


@pytest.fixture(scope="module", params=sorted(LAYERS))
def config(request):
    return load_config(ROOT / "config" / "config.yaml", *(ROOT / "config" / f for f in LAYERS[request.param]))


def _job(llm: dict, tmp_path: Path):
    """A stand-in for ``cultalign.core.job.Job`` with only what ``open_client`` reads."""
    return SimpleNamespace(rule="fake_rule", writer="fake_rule", params={"llm": llm})


def test_parse_time_and_run_time_share_one_spec_and_strategy(config, tmp_path, monkeypatch):
    """Every model's strategy is resolved once, in its ModelSpec: the parse-time scoring check
    reports the spec's strategy, the rule's param carries it, and the job's client (rebuilt from
    the param, as Snakemake hands it over) has an equal spec with the same strategy."""
    import cultalign.models.capabilities as caps

    calls = []
    resolve = caps.resolve_scoring
    monkeypatch.setattr(caps, "resolve_scoring", lambda spec: calls.append(spec.name) or resolve(spec))
    specs = model_specs(config)
    assert sorted(calls) == sorted(config["models"])  # one resolution per model, none elsewhere
    used = check_scoring(copy.deepcopy(config), specs)
    assert len(calls) == len(config["models"])  # the check resolved nothing again
    assert used and all(used[m] == specs[m].scoring_strategy for m in used)
    cfg = {**config, "cache_dir": str(tmp_path / "cache")}
    for name, spec in specs.items():
        param = canonical(llm_param(cfg, spec))
        assert param["scoring"] == spec.scoring_strategy
        client = open_client(_job(param, tmp_path))
        assert client.spec == spec, name
        assert client.scoring == spec.scoring_strategy
    # the param's entry is the validated entry, less the display name (it only labels figures)
    for name, entry in config["models"].items():
        assert llm_param(cfg, specs[name])["spec"] == {k: v for k, v in entry.items() if k != "display_name"}


def test_a_job_whose_spec_scores_otherwise_than_the_parse_time_check_fails(tmp_path):
    spec = ModelSpec.from_config("m", {"backend": "transformers", "path": "m"})
    param = canonical(llm_param({"cache_dir": None, "retry": {"temperature": 0.7, "max_attempts": 3},
                                 "model_outputs": {"max_cut_share": None}}, spec))
    param["scoring"] = "first_token"
    with pytest.raises(RuntimeError, match=r"model 'm' scores 'full' here but 'first_token'"):
        open_client(_job(param, tmp_path))


def test_unknown_key_under_a_model_entry_is_an_error_naming_it():
    cfg = load_config(ROOT / "config" / "config.yaml")
    bad = copy.deepcopy(cfg)
    bad["models"]["smollm2-135m-instruct"]["timeout"] = 30
    with pytest.raises(ConfigError, match=r"unknown config key\(s\) 'timeout' at models.smollm2-135m-instruct"):
        validate_config(bad)
    with pytest.raises(ConfigError, match=r"models.smollm2-135m-instruct: unknown key\(s\) \['timeout'\]"):
        model_specs(bad)


@pytest.mark.parametrize("backend", ["openai", "vllm", "transformers"])
@pytest.mark.parametrize("old", sorted(EXTRA_MOVED))
def test_a_setting_under_extra_is_refused_naming_its_own_key(backend, old):
    entry = {"backend": backend, "extra": {old: 1}}
    with pytest.raises(ValueError, match=rf"models.m.extra: \['{old}'\] .*set models.m.{EXTRA_MOVED[old]} instead"):
        ModelSpec.from_config("m", entry)
    with pytest.raises(ConfigError, match=rf"models.m.{EXTRA_MOVED[old]} instead"):
        model_specs({"models": {"m": entry}})


def test_extra_holds_vllm_engine_arguments_only():
    assert ModelSpec.from_config("m", {"backend": "vllm", "extra": {"enforce_eager": True}}).extra == {
        "enforce_eager": True}
    for backend in ("openai", "transformers"):
        with pytest.raises(ValueError, match=rf"models.m.extra: \['enforce_eager'\]: extra holds vLLM engine "
                                             rf"arguments only \(backend is '{backend}'"):
            ModelSpec.from_config("m", {"backend": backend, "extra": {"enforce_eager": True}})


def test_openai_settings_are_schema_keys_with_their_defaults():
    spec = ModelSpec.from_config("m", {"backend": "openai", "hub_id": "org/m"})
    assert (spec.max_retries, spec.request_timeout, spec.backoff_base, spec.backoff_cap) == (5, 120.0, 1.0, 30.0)
    assert (spec.top_logprobs, spec.first_token_max_tokens, spec.prompt_logprobs) == (20, 16, None)
    assert spec.served_model == "org/m"
    assert ModelSpec.from_config("m", {"backend": "openai", "api_model": "x/y"}).served_model == "x/y"
    assert ModelSpec.from_config("m", {"backend": "openai"}).served_model == "m"


def test_pipeline_parallel_size_counts_gpus_and_reaches_the_engine():
    from cultalign.models.vllm_backend import engine_kwargs

    entry = {"backend": "vllm", "hub_id": "org/m", "tensor_parallel_size": 2, "pipeline_parallel_size": 2}
    assert model_gpus(entry, 1) == 4 and model_gpus({**entry, "pipeline_parallel_size": 1}, 1) == 2
    assert engine_kwargs(ModelSpec.from_config("m", entry))["pipeline_parallel_size"] == 2
    assert "pipeline_parallel_size" not in engine_kwargs(ModelSpec.from_config("m", {"backend": "vllm",
                                                                                       "hub_id": "org/m"}))
