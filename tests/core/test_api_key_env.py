"""A key pasted into ``api_key_env`` (instead of a variable name) is rejected and never printed."""

from __future__ import annotations

import copy
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from cultalign.config import ConfigError, load_schema, validate_config
from cultalign.models import ModelSpec
from cultalign.models import openai_backend as ob

ROOT = Path(__file__).resolve().parents[2]
DEFAULT = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
PASTED = "sk-proj-Abc123/def+456=="  # what a pasted key looks like


def _with_key_env(value):
    cfg = copy.deepcopy(DEFAULT)
    cfg.setdefault("models", {})["remote"] = {"backend": "openai", "api_key_env": value}
    return cfg


@pytest.mark.parametrize("value", [PASTED, "sk-0123456789abcdef", "1ABC", "MY KEY"])
def test_schema_rejects_a_non_variable_name_without_printing_it(value):
    with pytest.raises(ConfigError) as e:
        validate_config(_with_key_env(value), load_schema())
    msg = str(e.value)
    assert "config key 'models.remote.api_key_env'" in msg
    assert "environment variable" in msg
    assert value not in msg


@pytest.mark.parametrize("value", ["OPENAI_API_KEY", "_key2", None])
def test_schema_accepts_variable_names(value):
    validate_config(_with_key_env(value), load_schema())


def test_resolve_api_key_never_echoes_a_non_name():
    spec = ModelSpec(name="remote", backend="openai", api_key_env=PASTED)
    with pytest.raises(RuntimeError) as e:
        ob.resolve_api_key(spec, {PASTED: "x"})
    assert "models.remote.api_key_env" in str(e.value)
    assert PASTED not in str(e.value) and "sk-" not in str(e.value)


def test_resolve_api_key_names_an_unset_variable():
    spec = ModelSpec(name="remote", backend="openai", api_key_env="CULTALIGN_UNSET_VAR")
    with pytest.raises(RuntimeError, match="CULTALIGN_UNSET_VAR"):
        ob.resolve_api_key(spec, {})


@pytest.mark.slow
def test_snakemake_rejects_a_pasted_key_before_any_job_without_printing_it(tmp_path):
    cfg = tmp_path / "pasted.yaml"
    cfg.write_text(yaml.safe_dump({"models": {"remote": {"backend": "openai", "api_key_env": PASTED}}}))
    out = subprocess.run([sys.executable, "-m", "snakemake", "-n", "--cores", "1", "--configfile", str(cfg),
                          "--directory", str(ROOT)], capture_output=True, text=True, cwd=ROOT)
    text = out.stdout + out.stderr
    assert out.returncode != 0
    assert "config key 'models.remote.api_key_env'" in text
    assert PASTED not in text
    assert "Job stats" not in out.stdout
