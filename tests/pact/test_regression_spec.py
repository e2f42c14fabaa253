"""Appendix D regression specification on simulated survey answers with known effects: the scenario
is a random intercept so scenario country is testable, no-persona answers stay in the fit, and the
prompt formats get a term (R via rpy2, lme4 glmer)."""

import numpy as np
import pandas as pd
import pytest

from cultalign.pact import regression

MODEL_TERMS = ["scenario_country", "model", "question_type", "prompt_format", "receiver_gender",
               "persona_setting", "persona_country", "persona_age", "persona_gender"]
NESTED = {"persona_setting": ["persona_country", "persona_age", "persona_gender"]}


def simulated_answers(seed: int = 7, n_scenarios: int = 32, per_scenario: int = 120) -> pd.DataFrame:
    """Survey answers shaped like ``survey.run_survey`` output: no-persona rows have empty persona
    fields; known effects: scenario country (strong), prompt format, question type, a scenario
    random intercept; receiver gender and persona age have none."""
    rng = np.random.default_rng(seed)
    countries = {"India": 1.5, "Brazil": 0.5, "UK": -0.5, "US": -1.5}
    formats = {"compact_json": 0.0, "minimal_direct": 0.5}
    rows = []
    for s in range(n_scenarios):
        country = list(countries)[s % 4]
        u = rng.normal(0, 0.5)
        for _ in range(per_scenario):
            persona = rng.random() < 0.5
            fmt = rng.choice(list(formats))
            q = rng.choice(["personal", "norm"])
            eta = countries[country] + formats[fmt] + (0.4 if q == "norm" else 0.0) + u
            rows.append({"request_id": f"r{len(rows):06d}", "scenario_id": f"s{s:02d}", "scenario_country": country,
                         "model": "m1" if rng.random() < 0.5 else "m2", "question_type": q, "prompt_format": fmt,
                         "receiver_gender": rng.choice(["female", "male"]),
                         "persona_setting": "persona" if persona else "no_persona",
                         "persona_country": rng.choice(["India", "UK"]) if persona else np.nan,
                         "persona_age": rng.choice(["young", "old"]) if persona else np.nan,
                         "persona_gender": rng.choice(["female", "male"]) if persona else np.nan,
                         "position_audit": "False",
                         "follow_culture": float(rng.random() < 1 / (1 + np.exp(-eta)))})
    return pd.DataFrame(rows)


@pytest.mark.slow
def test_model_regression_recovers_country_and_format_with_personas_kept():
    m = regression.model_answers(simulated_answers())
    assert set(m["persona_setting"]) == {"persona", "no_persona"}
    assert (m.loc[m.persona_setting == "no_persona", "persona_country"] == "no_persona").all()
    t = regression.drop1_table(m, MODEL_TERMS, who="model", random=["scenario_id"], nested=NESTED).set_index("term")
    assert t.loc["scenario_country", "status"] == "fitted"
    assert t.loc["scenario_country", "df"] == 3  # testable: the scenario is a random intercept, not a fixed effect
    assert t.loc["scenario_country", "q_value"] < 1e-6
    assert t.loc["prompt_format", "df"] == 1 and t.loc["prompt_format", "q_value"] < 1e-6
    # the strongest predictor is the scenario country (largest deviance increase)
    assert t["deviance_increase"].idxmax() == "scenario_country"
    # no effect simulated for receiver gender or the persona attributes
    assert t.loc["receiver_gender", "p_value"] > 0.01
    # persona_setting has two levels and its test drops the persona attributes nested in it
    assert t.loc["persona_setting", "status"] == "fitted"
    assert t.loc["persona_setting", "dropped"] == "persona_setting+persona_country+persona_age+persona_gender"
    assert t.loc["persona_setting", "df"] == 4
    assert (t["random_effects"] == "scenario_id").all()
    assert t["n"].iloc[0] == len(m)  # no row dropped as missing


@pytest.mark.slow
def test_by_question_runs_when_outcome_varies_and_personas_are_empty():
    """The crash of issue 11: empty persona fields of no-persona answers must not leave
    persona_setting with one level."""
    m = regression.model_answers(simulated_answers(n_scenarios=8, per_scenario=60))
    t = regression.by_question(m, MODEL_TERMS, "model", random=["scenario_id"], nested=NESTED)
    assert set(t["question_type"]) == {"personal", "norm", "pooled"}
    fitted = t[t.status == "fitted"]
    assert set(fitted["term"]) >= {"scenario_country", "persona_setting", "prompt_format"}


def test_model_answers_rejects_persona_row_without_persona():
    d = simulated_answers(n_scenarios=1, per_scenario=10)
    i = d.index[d.persona_setting == "persona"][0]
    d.loc[i, "persona_age"] = np.nan
    with pytest.raises(ValueError, match=f"row {i}.*persona_age"):
        regression.model_answers(d)
