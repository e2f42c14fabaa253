"""Config schema: validation errors name the key; schema and default config stay in sync."""

from __future__ import annotations

import copy
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from cultalign.config import ConfigError, check_input_files, load_schema, validate_config

ROOT = Path(__file__).resolve().parents[2]
DEFAULT = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())


def _walk_schema(schema, path=""):
    """(key path, sub-schema) for every named property, recursively."""
    for name, sub in (schema.get("properties") or {}).items():
        p = f"{path}.{name}" if path else name
        yield p, sub
        yield from _walk_schema(sub, p)
    addl = schema.get("additionalProperties")
    if isinstance(addl, dict):
        yield from _walk_schema(addl, f"{path}.<name>")


def test_every_schema_key_has_description_and_default():
    missing = [p for p, sub in _walk_schema(load_schema()) if "description" not in sub or "default" not in sub]
    assert not missing, f"schema keys without description/default: {missing}"


def test_each_default_is_defined_once():
    """A section's own default is {}: its keys carry their defaults (filled recursively), so no
    value is written twice in the schema."""
    twice = [p for p, sub in _walk_schema(load_schema())
             if sub.get("properties") and sub.get("default") not in ({}, None)]
    assert not twice, f"sections that restate their keys' defaults: {twice}"


def test_model_spec_defaults_come_from_the_schema():
    from cultalign.models import ModelSpec

    props = load_schema()["properties"]["models"]["additionalProperties"]["properties"]
    fields = ModelSpec.config_keys()  # the resolved fields (scoring_strategy) are no config keys
    assert set(fields) == set(props)
    spec = ModelSpec(name="x")
    assert {k: getattr(spec, k) for k in fields} == {k: v["default"] for k, v in props.items()}


def _get(cfg, dotted):
    for part in dotted.split("."):
        if not isinstance(cfg, dict) or part not in cfg:
            raise KeyError(dotted)
        cfg = cfg[part]
    return cfg


def test_default_config_and_schema_are_in_sync():
    schema = load_schema()
    validate_config(copy.deepcopy(DEFAULT), schema)  # no unknown keys, right types
    # every named schema key (outside free-form maps) is spelled out in config.yaml
    absent = []
    for p, _ in _walk_schema(schema):
        if "<name>" in p:
            continue
        try:
            _get(DEFAULT, p)
        except KeyError:
            parent = p.rsplit(".", 1)[0] if "." in p else ""
            # keys below a value the config sets to a non-dict (e.g. null) are not expected
            try:
                if parent and not isinstance(_get(DEFAULT, parent), dict):
                    continue
            except KeyError:
                continue
            absent.append(p)
    assert not absent, f"schema keys missing from config/config.yaml: {absent}"


def test_defaults_are_filled():
    cfg = validate_config({}, load_schema())
    assert cfg["retry"] == {"max_attempts": 3, "temperature": 0.7}
    assert cfg["scale"] == "demo"


@pytest.mark.parametrize("patch,expected", [
    ({"seed": "abc"}, "config key 'seed': expected integer, got str 'abc'"),
    ({"retry": {"max_attempts": "3"}}, "config key 'retry.max_attempts': expected integer"),
    ({"scale": "huge"}, "config key 'scale': expected one of ['demo', 'paper']"),
    ({"sede": 1}, "unknown config key(s) 'sede' at top level"),
    ({"models": {"x": {"backend": "transformers", "batchsize": 4}}}, "unknown config key(s) 'batchsize' at models.x"),
    ({"models": {"x": {"backend": "tgi"}}}, "config key 'models.x.backend': expected one of"),
])
def test_bad_values_name_the_key(patch, expected):
    cfg = copy.deepcopy(DEFAULT)
    for k, v in patch.items():
        if isinstance(v, dict) and isinstance(cfg.get(k), dict):
            cfg[k] = {**cfg[k], **v}
        else:
            cfg[k] = v
    with pytest.raises(ConfigError) as e:
        validate_config(cfg, load_schema())
    assert expected in str(e.value)


def test_missing_input_file_names_file_and_key(tmp_path):
    cfg = validate_config({"claims": "config/nope.yaml"}, load_schema())
    with pytest.raises(ConfigError) as e:
        check_input_files(cfg, load_schema(), base=ROOT)
    assert "config/nope.yaml (set by config key 'claims') does not exist" in str(e.value)


@pytest.mark.slow
@pytest.mark.parametrize("override,expected", [
    ("seed=abc", "config key 'seed': expected integer"),
    ("claims=config/missing.yaml", "config/missing.yaml (set by config key 'claims') does not exist"),
])
def test_snakemake_fails_before_any_job_naming_the_key(override, expected, tmp_path):
    out = subprocess.run([sys.executable, "-m", "snakemake", "-n", "--cores", "1", "--config", override,
                          "--directory", str(ROOT)], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode != 0
    assert expected in out.stdout + out.stderr
    assert "Job stats" not in out.stdout


def test_errors_point_to_the_schema_file_that_describes_the_key():
    cfg = copy.deepcopy(DEFAULT)
    cfg["pact"]["behaviour"]["bootstrap"] = "many"
    cfg["seed"] = "abc"
    with pytest.raises(ConfigError) as e:
        validate_config(cfg, load_schema())
    text = str(e.value)
    assert "config key 'pact.behaviour.bootstrap': expected integer, got str 'many' " \
           "(described in config/schema/pact.yaml)" in text
    assert "config key 'seed': expected integer, got str 'abc' (described in config/schema/core.yaml)" in text


def test_nested_cli_config_strings_are_typed_per_schema():
    from cultalign.config import coerce_cli_config

    schema = load_schema()
    # what Snakemake makes of --config 'pact={"behaviour":{"bootstrap":50,"temperature":0.5}}' ... run_name=2024
    cli = {"pact": {"behaviour": {"bootstrap": "50", "temperature": "0.5"},
                    "human": {"prolific_export": "null"}},
           "retry": {"max_attempts": "three"}, "run_name": 2024, "seed": 7}
    cfg = copy.deepcopy(DEFAULT)
    cfg["pact"]["behaviour"].update(cli["pact"]["behaviour"])
    cfg["pact"]["human"]["prolific_export"] = "null"
    cfg["retry"]["max_attempts"] = "three"
    cfg["run_name"], cfg["seed"] = 2024, 7
    cfg["pact"]["sources"]["normad"]["path"] = "50"  # from a config file: a string key stays untouched
    coerce_cli_config(cfg, cli, schema)
    assert cfg["pact"]["behaviour"]["bootstrap"] == 50 and type(cfg["pact"]["behaviour"]["bootstrap"]) is int
    assert cfg["pact"]["behaviour"]["temperature"] == 0.5
    assert cfg["pact"]["human"]["prolific_export"] is None
    assert cfg["run_name"] == "2024" and cfg["seed"] == 7
    assert cfg["pact"]["sources"]["normad"]["path"] == "50"
    # a string that is no integer is left for validation, which names the key
    with pytest.raises(ConfigError, match=r"config key 'retry.max_attempts': expected integer, got str 'three'"):
        validate_config(cfg, schema)


def test_numbers_have_one_spelling_per_schema_type():
    """`temperature: 0` in a YAML file and `0.0` (config.yaml, --config) are one param value; so are
    `max_new_tokens: 16.0` and `16` (Snakemake compares params by repr)."""
    schema = load_schema()
    spelled = copy.deepcopy(DEFAULT)
    spelled["pact"]["construct"]["filter"].update(temperature=0, max_new_tokens=16.0)
    spelled["planning"] = {"throughput": [{"max_params_b": 8, "generated_tokens_per_s": 1591}]}
    cfg = validate_config(spelled, schema)
    flt = cfg["pact"]["construct"]["filter"]
    assert repr(flt["temperature"]) == "0.0" and repr(flt["max_new_tokens"]) == "16"
    assert repr(cfg["planning"]["throughput"][0]) == "{'max_params_b': 8.0, 'generated_tokens_per_s': 1591.0}"
    assert cfg["monopolet"]["extraction"]["postprocess"] is True  # a boolean stays a boolean
    same = validate_config(copy.deepcopy(DEFAULT), schema)["pact"]["construct"]["filter"]
    assert repr(same) == repr(flt)


@pytest.mark.slow
def test_nested_cli_config_reaches_the_rule_typed(tmp_path):
    """`snakemake --config 'pact={"behaviour":{"bootstrap":50}}'` parses and plans the analysis rerun."""
    smk = Path(sys.executable).with_name("snakemake")
    out = subprocess.run([str(smk), "-n", "--cores", "1", "pact_figure3", "--config",
                          'pact={"behaviour":{"bootstrap":50}}', "--printshellcmds"],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "pact_behaviour_analysis" in out.stdout + out.stderr
