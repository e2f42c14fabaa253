"""The parse-time check of every rule that scores options (called from rules/common.smk).

It walks the ``scoring_uses`` hook of each configured study (``cultalign.studies``),
the rules that score options with a model, and fails naming model, rule and config key when a model is asked for
what it cannot do (``cultalign.models.capabilities``).  It lives outside the
model layer because it reads the studies' option labels: the model layer that
jobs import must not depend on the study modules (every model rule's code hash
would then change with each study's code).
"""

from __future__ import annotations

from dataclasses import dataclass

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


def scoring_uses(config: dict) -> list[ScoringUse]:
    """Every (rule, key, model, labels) of the configured studies that scores options."""
    from cultalign.studies import configured

    return [u for study in configured(config).values() for u in study.scoring_uses(config)]


def check_scoring(config: dict, specs: dict[str, ModelSpec] | None = None) -> dict[str, str]:
    """Fail (ConfigError) naming model, rule and config key where a rule asks a model for option
    scoring it cannot do; return the strategy of every model that scores.  ``specs``: the
    config's ``model_specs`` (made here when not given); each strategy is the spec's."""
    from cultalign.config import ConfigError

    models = model_specs(config) if specs is None else specs
    problems, used = [], {}
    from cultalign.studies import configured

    for study in configured(config).values():
        problems += study.scoring_problems(config, models)
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
