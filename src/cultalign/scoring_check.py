"""The parse-time check of every rule that scores options (called from rules/common.smk).

It walks ``SCORING_USES``, the rules of each study that score options with a
model, and fails naming model, rule and config key when a model is asked for
what it cannot do (``cultalign.models.capabilities``).  It lives outside the
model layer because it reads the studies' option labels: the model layer that
jobs import must not depend on the study modules (every model rule's code hash
would then change with each study's code).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable

from cultalign.models.capabilities import backend_problem, label_problem
from cultalign.models.types import ModelSpec, model_specs


# -- the rules that score options (parse-time check) ----------------------------------------
@dataclass(frozen=True)
class ScoringUse:
    """One rule that scores options with a model: the rule, the config key that makes it
    score with that model, the model and the option labels it asks for (None: whole texts)."""

    rule: str
    key: str
    model: str
    labels: tuple[str, ...] | None


def _pact_uses(config: dict) -> Iterable[ScoringUse]:
    from cultalign.pact.behaviour import LOGPROB_LABELS

    pact = config.get("pact") or {}
    if not (pact.get("behaviour") or {}).get("logprob"):
        return
    for key in ("models", "comparison_models"):
        for i, m in enumerate(pact.get(key) or []):
            yield ScoringUse("pact_behaviour", f"pact.behaviour.logprob (model at pact.{key}[{i}])", m,
                             tuple(LOGPROB_LABELS))


def _personas_uses(config: dict) -> Iterable[ScoringUse]:
    from cultalign.personas.evaluate import LABELS, mcs_mode, mcs_models
    from cultalign.personas.generate import CHECK_LABELS

    pc = config.get("personas") or {}
    gen = pc.get("generator_model")
    if gen:
        for rule in ("personas_norms", "personas_scenarios", "personas_questions"):
            yield ScoringUse(rule, "personas.generator_model (self-checks)", gen, tuple(CHECK_LABELS))
    mcs = pc.get("mcs") or {}
    evaluated = mcs_models(pc)
    for i, m in enumerate(pc.get("models") or []):
        if m not in evaluated:
            continue  # personas.mcs.exclude: no MCS rule scores with it
        mode = mcs_mode(mcs, m)
        key = f"personas.mcs.score_by_model.{m}" if m in (mcs.get("score_by_model") or {}) else "personas.mcs.score"
        # MCS items have up to len(LABELS) options; label mode scores their letters
        labels = tuple(LABELS[:5]) if mode == "label" else None
        for rule in ("personas_mcs", "personas_release_mcs"):
            yield ScoringUse(rule, f"{key} = {mode!r} (model at personas.models[{i}])", m, labels)


def _monopolet_uses(config: dict) -> Iterable[ScoringUse]:
    from cultalign.monopolet.mapping import NO, YES

    mapping = (config.get("monopolet") or {}).get("mapping") or {}
    m = mapping.get("model")
    if m and mapping.get("check", "score") == "score":  # check generate scores nothing
        yield ScoringUse("monopolet_sections", "monopolet.mapping.model", m, (YES, NO))


SCORING_USES: dict[str, Callable[[dict], Iterable[ScoringUse]]] = {
    "pact": _pact_uses,
    "personas": _personas_uses,
    "monopolet": _monopolet_uses,
}


def scoring_uses(config: dict) -> list[ScoringUse]:
    """Every (rule, key, model, labels) of the configured studies that scores options."""
    return [u for study in config.get("studies") or [] if study in SCORING_USES
            for u in SCORING_USES[study](config)]


def _mcs_methods_problem(pc: dict, specs: dict[str, ModelSpec]) -> list[str]:
    """One scoring method for every MCS model (paper section 4.3.1: log-probabilities over the options,
    all models prompted the same way): the Table 2/6 gains average over models, so a table that mixes
    whole-option log-probs with first-token label log-probs averages different measurements."""
    from cultalign.personas.evaluate import mcs_mode, mcs_models

    methods = {m: (specs[m].scoring_strategy, mcs_mode(pc.get("mcs") or {}, m))
               for m in mcs_models(pc) if m in specs}
    # a model asked for scoring it cannot do fails by itself (check_scoring names it)
    methods = {m: v for m, v in methods.items() if v[0] != "none" and v != ("first_token", "text")}
    if len(set(methods.values())) <= 1:
        return []
    listed = ", ".join(f"{m}: {s} log-probs of the option {'letters' if mode == 'label' else 'texts'}"
                       for m, (s, mode) in methods.items())
    return [f"config key 'personas.mcs.exclude': the MCS models are scored in different ways ({listed}); "
            "every MCS model is scored the same way (one method per table): name a model that cannot give "
            "the others' option log-probabilities under personas.mcs.exclude with its reason, or set "
            "personas.mcs.score / score_by_model so that all agree"]


def check_scoring(config: dict, specs: dict[str, ModelSpec] | None = None) -> dict[str, str]:
    """Fail (ConfigError) naming model, rule and config key where a rule asks a model for option
    scoring it cannot do; return the strategy of every model that scores.  ``specs``: the
    config's ``model_specs`` (made here when not given); each strategy is the spec's."""
    from cultalign.config import ConfigError

    models = model_specs(config) if specs is None else specs
    problems, used = [], {}
    if "personas" in (config.get("studies") or []):
        pc = config.get("personas") or {}
        for sub in ("score_by_model", "exclude"):
            for m in ((pc.get("mcs") or {}).get(sub) or {}):
                if m not in (pc.get("models") or []):
                    problems.append(f"config key 'personas.mcs.{sub}.{m}': {m!r} is not one of "
                                    f"personas.models {pc.get('models')}")
        problems += _mcs_methods_problem(pc, models)
    for u in scoring_uses(config):
        if u.model not in models:
            continue  # check_model_refs names it
        strategy = models[u.model].scoring_strategy
        used[u.model] = strategy
        why = backend_problem(models[u.model])
        if why is None and strategy == "none":
            why = f"it cannot score options (models.{u.model}.scoring: none)"
        elif why is None and strategy == "first_token" and label_problem(u.labels):
            why = (f"it scores by first-token log-probs (models.{u.model}.scoring: first_token) and "
                   f"{label_problem(u.labels)}")
        if why:
            problems.append(f"rule {u.rule}: model {u.model!r} is asked to score options by config key "
                            f"'{u.key}', but {why}")
    if problems:
        raise ConfigError("option scoring the model cannot do:\n  " + "\n  ".join(dict.fromkeys(problems)))
    return used
