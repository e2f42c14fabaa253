"""Bring your own model: one model (``my_model.name``, declared under ``models:``) put through the
studies listed in ``my_model.studies`` beside the papers' models (config/my-model.yaml, target
``model_card``).

:func:`apply_my_model` runs while the Snakefile is parsed, after the config is validated and before
the model checks: it adds the model to each study's model list (the role through which a study
runs a model of its own), so the study's per-model rules make its outputs exactly as they make
the papers' models'.  A study the model cannot run is left out; :func:`card_skips` gives the
reason, which the model card shows.
"""

from __future__ import annotations

from pathlib import Path

from .config import ConfigError
from .models.types import ModelSpec

STUDIES = ("pact", "personas", "monopolet")
# the model list of each study (config section, key): the rules with a {model} / {agent} wildcard
ROLE_LISTS = {"pact": ("pact", "models"), "personas": ("personas", "models"),
              "monopolet": ("monopolet", "answer_models")}


def my_model_name(config: dict) -> str:
    """The model of the card: ``my_model.name``, else the named default model (config
    ``default_model``, never the first under ``models:``, whose order follows the files merged)."""
    name = (config.get("my_model") or {}).get("name") or config.get("default_model")
    if not name:
        raise ConfigError("config key 'my_model.name': null, and the config names no default_model")
    return name


def card_skips(config: dict, name: str | None = None, base: str | Path | None = None) -> dict[str, str]:
    """{study: why the model is not run in it} for each of the three studies the card leaves out.

    With ``base`` (the workflow's folder) a study whose benchmark is neither made yet nor can be made
    from the inputs the config names is left out too (``missing_benchmark``)."""
    name = name or my_model_name(config)
    mine = config.get("my_model") or {}
    wanted = mine.get("studies", list(STUDIES))
    spec = (config.get("models") or {}).get(name) or {}
    skips = {}
    for study in STUDIES:
        section, key = ROLE_LISTS[study]
        if study not in wanted:
            skips[study] = "not in my_model.studies"
        elif study not in (config.get("studies") or []):
            skips[study] = f"the study is not under `studies` ({', '.join(config.get('studies') or []) or 'none'})"
        elif study == "personas" and ModelSpec.from_config(name, spec).scoring_strategy == "none":
            skips[study] = (f"no option log-probs (models.{name}.scoring: none): the multiple-choice "
                            "survey (MCS) reads the probability of each answer option")
        elif study == "monopolet" and not (config.get("monopolet") or {}).get("manifest"):
            skips[study] = "no episodes: monopolet.manifest is null (the podcast is not public; point it at your copy)"
        elif not mine.get("name") and name not in (config.get(section) or {}).get(key, []):
            skips[study] = (f"my_model.name is null and the default model {name} is not in {section}.{key} "
                            "(set my_model.name to add a model)")
        elif base is not None and (why := missing_benchmark(config, study, Path(base))):
            skips[study] = why
    return skips


def _source_available(config: dict, path: str | None, base: Path) -> bool:
    """A source file exists, or it is a download whose entry has a URL (rule download_file fetches it)."""
    if not path:
        return False
    if (base / path).exists():
        return True
    key = path.removeprefix("resources/downloads/").rstrip("/")
    if key == path.rstrip("/"):
        return False
    downloads = config.get("downloads") or {}
    if (downloads.get(key) or {}).get("url"):
        return True
    # a folder that download entries fill file by file (the published CulturalPersonas release)
    inside = [e for k, e in downloads.items() if k.startswith(key + "/")]
    return bool(inside) and all((e or {}).get("url") for e in inside)


def missing_benchmark(config: dict, study: str, base: Path) -> str | None:
    """Why ``study``'s benchmark is not there for a new model (None when it is, or can be made): PACT's
    constructed instances, CulturalPersonas' CP items per run country (generated from the corpus, or
    the published release with personas.cp_source: release)."""
    if study == "pact":
        if (base / "results/pact/construct/instances.tsv").exists():
            return None
        for source, entry in sorted(((config.get("pact") or {}).get("sources") or {}).items()):
            if not _source_available(config, (entry or {}).get("path"), base):
                return (f"no constructed PACT benchmark (results/pact/construct/instances.tsv) and its source "
                        f"pact.sources.{source}.path ({(entry or {}).get('path')}) is neither there nor a "
                        "download with a URL: supply the benchmark from a paper-scale run, or the source")
        return None
    if study == "personas":
        p = config.get("personas") or {}
        countries = p.get("run_countries") or []
        if all((base / f"results/personas/instruments/cp/{c}.tsv").exists() for c in countries):
            return None
        if p.get("cp_source") == "release":
            release = (p.get("release") or {}).get("path")
            if not _source_available(config, release, base):
                return (f"personas.cp_source is release and personas.release.path ({release}) is neither there "
                        "nor filled by downloads entries: point it at the published CulturalPersonas release")
            return None
        folders = (p.get("corpus") or {}).get("folders") or {}
        for c in countries:
            if folders.get(c) and not (base / folders[c]).is_dir():
                return (f"no CulturalPersonas benchmark for {c} (results/personas/instruments/cp/{c}.tsv) and "
                        f"its corpus folder personas.corpus.folders.{c} ({folders[c]}) is not there: use the "
                        "published release (personas.cp_source: release, personas.release.path)")
    return None


def apply_my_model(config: dict, base: str | Path | None = None) -> str:
    """Add ``my_model.name`` to the model list of each study it runs in (in place; appended, so the
    first model of a list, which some roles default to, stays first) and return its name.

    A null name adds nothing: the card is the default model's, in the studies that already run it.
    A study of ``my_model.studies`` that is not under ``studies`` is left out with its reason on the
    card (``card_skips``), as the default list names all three.  Fails naming the key when the name
    is not declared under ``models:``.
    """
    mine = config.get("my_model") or {}
    name = my_model_name(config)
    models = config.get("models") or {}
    if name not in models:
        raise ConfigError(f"config key 'my_model.name': {name!r} is not declared under `models:` "
                          f"(declare it there, as config/my-model.yaml does); declared: "
                          f"{', '.join(sorted(models)) or '(none)'}")
    if not mine.get("name"):
        return name
    skips = card_skips(config, name, base)
    for study in STUDIES:
        if study in skips:
            continue
        section, key = ROLE_LISTS[study]
        roles = list(config[section][key])
        if name not in roles:
            config[section][key] = [*roles, name]
        if study == "monopolet" and config["monopolet"].get("comparisons"):
            comparison = f"{name}_vs_panel"
            if comparison not in config["monopolet"]["comparisons"]:
                config["monopolet"]["comparisons"] = [*config["monopolet"]["comparisons"], comparison]
    return name


def without_model(cfg: dict, name: str) -> dict:
    """A copy of the planning config ``cfg`` (studies, models, pact, personas, monopolet...) with
    ``name`` left out of every study's model list (and its Danish-norms comparison); the roles that
    default to the first model of a list keep the model they had."""
    import copy

    out = copy.deepcopy(cfg)
    pact = out.get("pact") or {}
    if pact.get("models"):
        pact["construction_model"] = pact.get("construction_model") or pact["models"][0]
        pact["judge_model"] = pact.get("judge_model") or pact["construction_model"]
    for study in STUDIES:
        section, key = ROLE_LISTS[study]
        if section in out and key in out[section]:
            out[section][key] = [m for m in out[section][key] if m != name]
    mono = out.get("monopolet") or {}
    comparisons = mono.get("comparisons") or [f"{m}_vs_panel" for m in cfg.get("monopolet", {}).get(
        "answer_models", [])]
    if mono:
        mono["comparisons"] = [c for c in comparisons if c.split("_vs_")[0] != name]
    return out


def added_rows(with_model, without):
    """The planning rows (cultalign.planning.plan) that a model adds: ``with_model`` minus ``without``
    per (study, rule, model): its own rules' rows and the share of the rules that run on its outputs
    (the Danish norms' extraction of its answers and the judge's matching of them)."""

    from .planning import COLUMNS

    keys = ["study", "rule", "model", "backend", "gpus", "params_b", "generated_tokens_per_s"]
    nums = ["jobs", "requests", "prompt_tokens", "generated_tokens", "gpu_hours"]
    m = with_model.merge(without[keys + nums], on=keys, how="left", suffixes=("", "_without"))
    for c in nums:
        m[c] = m[c] - m[f"{c}_without"].fillna(0)
    m = m[(m["requests"] != 0) | (m["jobs"] != 0)].copy()
    for c in nums[:-1]:
        m[c] = m[c].astype("int64")
    m["gpu_hours"] = m["gpu_hours"].round(2)
    return m[COLUMNS].reset_index(drop=True)
