"""LLM stages on the real default model (SmolLM2-135M-Instruct, CPU) and the R regressions."""

import pandas as pd
import pytest

from cultalign.models import SamplingParams
from cultalign.pact import behaviour, construct, expand, ingest, regression
from cultalign.pact.behaviour import UNKNOWN

ROOT = __import__("pathlib").Path(__file__).resolve().parents[2]
DEMO = ROOT / "resources" / "demo" / "pact"


def _sampling(**section) -> SamplingParams:
    return SamplingParams.from_config(section, seed=1)


GEN = _sampling(temperature=0.0, max_new_tokens=120)


@pytest.fixture
def client(smollm2_client):
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)  # far faster than 2 threads on a shared 2-core machine
    yield smollm2_client
    torch.set_num_threads(before)


@pytest.mark.slow
def test_construction_stages_real_model(client):
    n = ingest.load_normad(DEMO / "normad_demo.csv").head(2)
    prefs = construct.generate_preferences(n, client, GEN, max_attempts=2)
    assert len(prefs) == 2 and prefs["attempts"].between(1, 2).all()
    for r in prefs[prefs.valid].itertuples():
        assert r.preference_type in construct.PREFERENCE_TYPES and r.cultural_expectation
    assert (prefs.loc[~prefs.valid, "raw_output"] != "").all()  # invalid rows keep their output
    rew = construct.rewrite_scenarios(prefs, client, _sampling(temperature=0.0, max_new_tokens=60), 2)
    judged = construct.judge_items(rew, client, _sampling(temperature=0.0, max_new_tokens=32), 2)
    counts = construct.validation_counts(judged).set_index("quantity")["value"]
    assert counts["passed"] + counts["removed"] == counts["scenarios_in"] == 2
    assert (judged["passed"] == (judged["removal_reason"] == "")).all()
    # a warm rerun is served from the cache
    before = client.stats["model_requests"]
    construct.generate_preferences(n, client, GEN, max_attempts=2)
    assert client.stats["model_requests"] == before


@pytest.mark.slow
def test_real_cultureatlas_filter_and_expand(client, shared_data):
    """Real data: partial CultureAtlas copy -> LLM filter (reason recorded) -> expansion."""
    ca = ingest.load_cultureatlas(shared_data / "cultureatlas" / "cultureAtlas_partial_CultureDistill.json")
    sample = ca.groupby("country").head(1).head(4)
    f = construct.filter_cultureatlas(sample, client, _sampling(temperature=0.0, max_new_tokens=16), 2)
    assert set(f["category"]) <= {"social_actionable", "factual", "non_social", "non_actionable", "invalid_output"}
    counts = construct.filter_counts(f).set_index("quantity")["value"]
    assert counts["kept_rows"] + counts["discarded_rows"] == counts["candidate_rows"] == 4
    kept = f[f["keep"]]
    inst = expand.expand(kept, seed=2)
    assert len(inst) == 48 * len(kept)


@pytest.mark.slow
def test_behaviour_generation_and_logprob_real_model(client):
    sc = pd.DataFrame([{"scenario_id": "t1", "source": "normad", "country": "India",
                        "scenario": "At a dinner in India the food arrives before the host sits down.",
                        "cultural_expectation": "Wait for the host.",
                        "personal_preference": "Eat while the food is hot.",
                        "preference_type": "convenience", "culture_option": "Wait for the host to start",
                        "preference_option": "Start eating right away"}])
    inst = expand.expand(sc, seed=4, combinations_per_scenario=2)
    conds = expand.conditions(inst, ["C1", "C3"], ["full_demo"], ["balance"])
    gen = behaviour.run_generation(conds, client, _sampling(temperature=0.3, top_p=0.9, max_new_tokens=12), 2)
    assert len(gen) == 4
    assert set(gen["decision"]) <= {behaviour.FOLLOW, behaviour.ALLOW, UNKNOWN}
    assert (gen["valid"] == (gen["decision"] != UNKNOWN)).all()
    lp = behaviour.run_logprob(conds, client)
    assert lp["p_follow_culture"].between(0, 1).all() and (lp["letter_mass"] > 0).all()


@pytest.mark.slow
def test_r_drop1_marks_constant_and_aliased_terms():
    import numpy as np

    rng = np.random.default_rng(0)
    n = 200
    d = pd.DataFrame({"scenario_id": rng.choice(["s1", "s2", "s3", "s4"], n), "model": "only-one",
                      "question_type": rng.choice(["personal", "norm"], n)})
    d["scenario_country"] = d["scenario_id"].map({"s1": "India", "s2": "India", "s3": "Peru", "s4": "Peru"})
    d["follow_culture"] = (rng.random(n) < np.where(d.scenario_country == "India", 0.8, 0.4)).astype(int)
    t = regression.drop1_table(d, ["scenario_country", "scenario_id", "model", "question_type"], who="model")
    st = t.set_index("term")["status"]
    assert st["model"] == "constant"
    assert st["scenario_country"] == "aliased"  # nested in the item fixed effects
    assert st["scenario_id"] == "fitted" and st["question_type"] == "fitted"
    assert t.loc[t.status == "fitted", "q_value"].between(0, 1).all()
