"""The registry of studies: one line per study, naming the module that tells the workflow about it.

What the generic code asks of a study lives in that module (``src/cultalign/<study>/study.py``),
as the module-level names in :data:`HOOKS`:

``plan(cfg, sizes, tokens)``
    the study's model rules for the planning table (``cultalign.planning``): a list of ``Work``;
    ``sizes`` is ``planning.input_sizes.<study>``.
``scoring_uses(config)``
    the rules that score options with a model (``cultalign.scoring_check.ScoringUse``).
``scoring_problems(config, models)``
    the study's own parse-time problems of option scoring (messages naming the config key).
``STAND_INS``
    the seeded stand-ins the workflow writes when an input is not provided:
    ``(config key, is it used?(config), path written, what it is)`` (``cultalign.inputs``).
``external_inputs(config, base, marks)``
    the study's external inputs that no ``x-input-file`` schema key names (``ExternalInput`` rows).
``input_active(key, config)``
    whether an input under one of the study's config keys is read by the configured run.
``model_inputs(config, base, marks)``
    the models the study reads besides ``models`` (sentence encoders, transcription), listed
    whatever ``studies`` holds, like the folders of ``hub_folders``.
``hub_folders(config)``
    ``{folder under resources/models: {hub_id, revision}}`` that the study's config asks
    rule ``download_model_hub`` to make, besides ``models`` with source hub.
``REAL_DATA_TABLES``
    the model-free tables the study's real-data rules (``rules/<study>/real_data.smk``) write.

A study is registered by its line in :data:`STUDIES` (a module of this package, or any module
on the import path); ``studies`` in a config may name registered studies only.  A module that
lacks a hook fails naming it.
"""

from __future__ import annotations

import importlib
from functools import cache
from types import ModuleType

# name -> the module that tells the workflow about the study (one line per study)
STUDIES: dict[str, str] = {
    "pact": "cultalign.pact.study",
    "personas": "cultalign.personas.study",
    "monopolet": "cultalign.monopolet.study",
}

HOOKS = ("plan", "scoring_uses", "scoring_problems", "STAND_INS", "external_inputs", "input_active",
         "model_inputs", "hub_folders", "REAL_DATA_TABLES")


# hooks for a study that has nothing to say (a module assigns them: `hub_folders = no_hub_folders`)
def no_scoring_problems(config: dict, models: dict) -> list[str]:
    return []


def no_external_inputs(config: dict, base, marks: list[str]) -> list:
    return []


def no_model_inputs(config: dict, base, marks: list[str]) -> list:
    return []


def every_input_active(key: str, config: dict) -> bool:
    return True


def no_hub_folders(config: dict) -> dict[str, dict]:
    return {}


class StudyError(ValueError):
    """An unregistered study, or a study module that lacks a hook."""


def registered() -> list[str]:
    """The names of the registered studies, in registry order."""
    return list(STUDIES)


@cache
def _load(name: str, module: str) -> ModuleType:
    mod = importlib.import_module(module)
    missing = [h for h in HOOKS if not hasattr(mod, h)]
    if missing:
        raise StudyError(f"study {name!r} (module {module}, cultalign.studies.STUDIES) lacks the hook(s) "
                         f"{', '.join(missing)}: every study module defines {', '.join(HOOKS)}")
    return mod


def study(name: str) -> ModuleType:
    """The module of registered study ``name`` (every hook checked present)."""
    if name not in STUDIES:
        raise StudyError(unregistered_message([name]))
    return _load(name, STUDIES[name])


def unregistered_message(names: list[str], key: str = "studies") -> str:
    bad = [n for n in names if n not in STUDIES]
    return "; ".join(f"config key '{key}': {n!r} is not a registered study (registered: {', '.join(STUDIES)})"
                     for n in bad)


def check_studies(config: dict) -> None:
    """Fail (ConfigError) naming config key ``studies`` and each study in it that is not registered."""
    from .config import ConfigError

    bad = unregistered_message(list(config.get("studies") or []))
    if bad:
        raise ConfigError(bad)


def configured(config: dict, names: list[str] | None = None) -> dict[str, ModuleType]:
    """{name: module} of the studies config ``studies`` (or ``names``) lists, in that order; an
    unregistered one fails naming it."""
    names = list(config.get("studies") or []) if names is None else list(names)
    if any(n not in STUDIES for n in names):
        raise StudyError(unregistered_message(names))
    return {n: study(n) for n in names}


def all_studies() -> dict[str, ModuleType]:
    """{name: module} of every registered study, in registry order."""
    return {n: study(n) for n in STUDIES}
