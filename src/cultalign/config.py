"""Config loading and validation with messages that name the key.

The schema lives in ``config/schema/*.yaml`` (one fragment per section: the
core keys in ``core.yaml``, each study under its own name) and is merged into
one JSON schema.  ``validate_config`` fills defaults, rejects unknown keys and
wrong types with one message per problem, each naming the key path and what
was expected, and raises before any job runs (it is called while the
Snakefile is parsed).
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import jsonschema

from .core.paths import schema_dir as default_schema_dir
from .core.yamlload import safe_load


class ConfigError(ValueError):
    """Raised for an invalid config; the message names every offending key."""


def load_schema(schema_dir: str | Path | None = None) -> dict:
    """The merged schema of ``schema_dir`` (default: the workflow's ``config/schema/``)."""
    schema_dir = Path(schema_dir) if schema_dir is not None else default_schema_dir()
    core = safe_load((schema_dir / "core.yaml").read_text())
    for frag in sorted(schema_dir.glob("*.yaml")):
        if frag.name == "core.yaml":
            continue
        section = safe_load(frag.read_text())
        core.setdefault("properties", {})[frag.stem] = section
    return core


def _key_path(error: jsonschema.ValidationError) -> str:
    parts = [str(p) for p in error.absolute_path]
    return ".".join(parts) if parts else "<top level>"


def _describe(error: jsonschema.ValidationError) -> str:
    key = _key_path(error)
    v = error.validator
    if error.schema.get("x-no-echo"):
        # a key that may receive a secret by mistake (api_key_env): never print the value
        want = f"a string matching {error.schema['pattern']}" if v == "pattern" else f"{v} {error.validator_value!r}"
        return (f"config key '{key}': expected {want} (the name of an environment variable); "
                f"the value given does not qualify and is not shown")
    if v == "additionalProperties":
        extra = sorted(set(error.instance) - set(error.schema.get("properties", {})))
        allowed = sorted(error.schema.get("properties", {}))
        where = key if key != "<top level>" else "top level"
        return f"unknown config key(s) {', '.join(repr(e) for e in extra)} at {where}; allowed: {allowed}"
    if v == "type":
        got = f"{type(error.instance).__name__} {error.instance!r}"
        return f"config key '{key}': expected {error.validator_value}, got {got}"
    if v == "enum":
        return f"config key '{key}': expected one of {error.validator_value}, got {error.instance!r}"
    if v == "required":
        return f"config key '{key}': {error.message}"
    return f"config key '{key}': {error.message}"


def _fill_defaults(schema: dict, instance: Any) -> None:
    if not isinstance(instance, dict):
        return
    props = schema.get("properties", {})
    for name, sub in props.items():
        if name not in instance and "default" in sub:
            instance[name] = copy.deepcopy(sub["default"])
        if name in instance:
            _fill_defaults(sub, instance[name])
    addl = schema.get("additionalProperties")
    if isinstance(addl, dict):
        for name, value in instance.items():
            if name not in props:
                _fill_defaults(addl, value)


def schema_file_of(key: str, schema_dir: str | Path | None = None) -> str:
    """The schema file (repo-relative) that describes config ``key`` (a dotted path)."""
    section = key.split(".")[0].split("[")[0]
    frag = Path(schema_dir if schema_dir is not None else default_schema_dir()) / f"{section}.yaml"
    name = frag.name if section != "core" and frag.exists() else "core.yaml"
    return f"config/schema/{name}"


def validate_config(config: dict, schema: dict | None = None) -> dict:
    """Fill defaults in place and validate; raise ConfigError listing every problem, each with
    the schema file that describes the key (its type, description and default)."""
    schema = schema or load_schema()
    _fill_defaults(schema, config)
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(config), key=lambda e: [str(p) for p in e.absolute_path])
    if errors:
        lines = [f"{_describe(e)} (described in {schema_file_of(_key_path(e))})" for e in errors]
        raise ConfigError("invalid config:\n  " + "\n  ".join(lines)
                          + "\n  (config/README.md: how config files are merged and overridden)")
    canonical_numbers(config, schema)
    return config


def canonical_numbers(config: dict, schema: dict) -> dict:
    """Give every number the one spelling of its schema type, in place: an integer at a key that
    takes only numbers becomes a float (``temperature: 0`` -> 0.0, as ``--config`` gives it), an
    integral float at a key that takes only integers becomes an int (``16.0`` -> 16).

    Snakemake compares params by their ``repr``: without this, ``0`` in a config file and ``0.0``
    from ``--config`` or another file are different params and rerun jobs although the value is
    the same (mapping keys are already sorted by ``conf()``).  Booleans are left alone."""

    def walk(sub: dict, holder, key) -> None:
        value = holder[key]
        if isinstance(value, dict):
            for k in list(value):
                walk(_sub_schema(sub, k), value, k)
        elif isinstance(value, list):
            for i in range(len(value)):
                walk(_sub_schema(sub, i), value, i)
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            types = _types(sub)
            if "number" in types and "integer" not in types and isinstance(value, int):
                holder[key] = float(value)
            elif "integer" in types and "number" not in types and isinstance(value, float) and value.is_integer():
                holder[key] = int(value)

    for k in list(config):
        walk(_sub_schema(schema, k), config, k)
    return config


# -- values given with --config ---------------------------------------------------

_NULL = {"null", "~"}
_TRUE = {"true", "yes", "on"}
_FALSE = {"false", "no", "off"}


def _types(schema: dict) -> set[str]:
    t = schema.get("type")
    out = {t} if isinstance(t, str) else set(t or [])
    for branch in schema.get("oneOf", []) + schema.get("anyOf", []):
        out |= _types(branch)
    return out


def _coerce(text: str, schema: dict):
    types = _types(schema)
    word = text.strip().lower()
    if "null" in types and word in _NULL:
        return None  # YAML's null (also where the key takes a string: a path set back to null)
    if not types or "string" in types:
        return text
    if "boolean" in types and word in _TRUE | _FALSE:
        return word in _TRUE
    if "integer" in types:
        try:
            return int(word)
        except ValueError:
            pass
    if "number" in types:
        try:
            return float(word)
        except ValueError:
            pass
    return text  # left for validation to report, naming the key


def _sub_schema(schema: dict, key) -> dict:
    if isinstance(key, int):
        return schema.get("items") if isinstance(schema.get("items"), dict) else {}
    props = schema.get("properties", {})
    if key in props:
        return props[key]
    addl = schema.get("additionalProperties")
    return addl if isinstance(addl, dict) else {}


def coerce_cli_config(config: dict, cli: Any, schema: dict) -> dict:
    """Give values set with ``snakemake --config`` the types the schema asks for, in place.

    Snakemake parses a top-level ``--config key=value`` as int, float or bool, but reads a
    nested value (``--config 'pact={"behaviour":{"bootstrap":50}}'``) with YAML's BaseLoader,
    so every scalar inside arrives as a string.  Each such string in the merged ``config`` at a
    key whose schema type is integer, number, boolean or null becomes that type (``"50"`` ->
    50, ``"true"`` -> True; ``"null"`` and ``"~"`` -> None wherever the key takes null);
    strings at keys that accept strings, and strings that do not parse, are left as they are
    (validation then names the key).  A top-level number at a key that takes only strings
    (``--config run_name=2024``) becomes its text.
    Values that came from config files are not touched.
    """

    def walk(sub: dict, cli_value, holder, key) -> None:
        try:
            current = holder[key]
        except (KeyError, IndexError, TypeError):
            return
        if isinstance(cli_value, str) and current == cli_value:
            holder[key] = _coerce(current, sub)
        elif (isinstance(cli_value, (int, float)) and not isinstance(cli_value, bool) and current == cli_value
              and "string" in _types(sub) and not _types(sub) & {"integer", "number"}):
            holder[key] = str(cli_value)  # `--config run_name=2024`: Snakemake made it a number
        elif isinstance(cli_value, dict) and isinstance(current, dict):
            for k, v in cli_value.items():
                walk(_sub_schema(sub, k), v, current, k)
        elif isinstance(cli_value, list) and isinstance(current, list) and len(current) == len(cli_value):
            for i, v in enumerate(cli_value):
                walk(_sub_schema(sub, i), v, current, i)

    for k, v in dict(cli or {}).items():
        walk(_sub_schema(schema, k), v, config, k)
    return config


def iter_marked(schema: dict, config: Any, mark: str, key: str = ""):
    """Yield (key path, value) for every non-empty string config value under a schema
    property marked ``mark`` (``x-input-file``, ``x-model-ref``), list items included
    (``a.b[2]``), through nested objects and arrays."""
    if isinstance(config, dict):
        props = schema.get("properties", {})
        addl = schema.get("additionalProperties") if isinstance(schema.get("additionalProperties"), dict) else None
        for name, value in config.items():
            sub = props.get(name, addl)
            if sub is None:
                continue
            k = f"{key}.{name}" if key else name
            if sub.get(mark):
                if isinstance(value, str) and value:
                    yield k, value
                elif isinstance(value, list):
                    yield from ((f"{k}[{i}]", v) for i, v in enumerate(value) if isinstance(v, str) and v)
            yield from iter_marked(sub, value, mark, k)
    elif isinstance(config, list) and isinstance(schema.get("items"), dict):
        for i, value in enumerate(config):
            yield from iter_marked(schema["items"], value, mark, f"{key}[{i}]")


def iter_input_paths(schema: dict, config: Any):
    """Yield (key path, value) for every config value the schema marks ``x-input-file``."""
    return iter_marked(schema, config, "x-input-file")


def check_input_files(config: dict, schema: dict | None = None, base: str | Path = ".") -> None:
    """Fail naming the file and the config key that points to it."""
    schema = schema or load_schema()
    # files that rule download_file makes (config `downloads`) need not exist yet
    made = {f"resources/downloads/{p}" for p in (config.get("downloads") or {})}
    # and the folders they fill (a release downloaded file by file)
    made |= {"/".join(parts[:k]) for parts in (m.split("/") for m in made) for k in range(3, len(parts))}
    missing = [(k, v) for k, v in iter_input_paths(schema, config)
               if v.rstrip("/") not in made and not (Path(base) / v).exists()]
    if missing:
        raise ConfigError(
            "missing input file(s):\n  "
            + "\n  ".join(f"{v} (set by config key '{k}') does not exist" for k, v in missing)
        )


def iter_model_refs(schema: dict, config: Any):
    """Yield (key path, model name) for every config value the schema marks ``x-model-ref``
    (a study's model list or a role such as a judge)."""
    return iter_marked(schema, config, "x-model-ref")


def check_model_refs(config: dict, schema: dict | None = None) -> None:
    """Every model a study names must be declared under ``models:``; fail naming the key."""
    schema = schema or load_schema()
    declared = set(config.get("models") or {})
    bad = [(k, v) for k, v in iter_model_refs(schema, config) if v not in declared]
    if bad:
        raise ConfigError(
            "unknown model name(s):\n  "
            + "\n  ".join(f"config key '{k}': {v!r} is not declared under `models:`" for k, v in bad)
            + f"\n  declared: {', '.join(sorted(declared)) or '(none)'}"
        )


# -- scheduler resources of model jobs (used by rules/common.smk) ---------------


def model_gpus(model: dict, gpus_per_job: int) -> int:
    """GPUs that one job running ``model`` (a ``models:`` entry) asks the scheduler for.

    API models (backend ``openai``) need none.  A vLLM model needs its
    ``tensor_parallel_size`` (times ``extra.pipeline_parallel_size`` when set),
    unless ``gpus_per_job`` (config ``resources.gpu``) is 0, which marks a run
    without GPUs (vLLM's CPU build).  Other backends get ``gpus_per_job``.
    """
    backend = model.get("backend", "transformers")
    if backend == "openai":
        return 0
    if backend == "vllm":
        if gpus_per_job == 0:
            return 0
        tp = int(model.get("tensor_parallel_size") or 1)
        pp = int((model.get("extra") or {}).get("pipeline_parallel_size") or 1)
        return tp * pp
    return gpus_per_job


def model_mem_mb(model: dict, resources: dict) -> int:
    """Host memory (MB) of one job running ``model``: ``resources.mem_mb`` per GPU it uses.

    A tensor-parallel vLLM job starts one worker process per GPU, each mapping
    its part of the weights, so host memory grows with the GPU count; jobs with
    0 or 1 GPU get ``resources.mem_mb``.
    """
    return int(resources["mem_mb"]) * max(1, model_gpus(model, int(resources["gpu"])))


def _merge(base: dict, over: dict) -> dict:
    """Recursive update in place: mappings merge, other values replace (as Snakemake merges configs)."""
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            _merge(base[key], value)
        else:
            base[key] = copy.deepcopy(value)
    return base


def load_config(default: str | Path, *overrides: str | Path, schema: dict | None = None) -> dict:
    """The validated config of ``snakemake --configfile <overrides...>``.

    ``default`` is the Snakefile's ``configfile:`` (config/config.yaml).

    Snakemake starts from the command-line config, merges the Snakefile's
    configfile into it and the command-line config again on top: values of the
    overrides win, nested mappings (e.g. ``models``) are merged, and the
    overrides' keys come first (so the first model of config/paper.yaml is the
    default model, not config.yaml's).
    """
    over: dict = {}
    for path in overrides:
        _merge(over, safe_load(Path(path).read_text()) or {})
    config = _merge(copy.deepcopy(over), safe_load(Path(default).read_text()) or {})
    _merge(config, over)
    return validate_config(config, schema)
