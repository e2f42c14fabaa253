"""Figure 5 A/B and the abstract's age / gender effects are computed over every decision of the main
models that shows the attribute, for the actor and the receiver (section 4.3); the appendix B.9
subset stays for Table 13 (``demographic_effects``)."""

import itertools

import pandas as pd
import pytest

from cultalign.pact import analysis, figures
from cultalign.pact.labels import ALLOW, FOLLOW

SIG = {"sources": ["cultureatlas"], "model_kinds": ["instruct"], "system_prompts": ["balance"],
       "age_ablations": ["full_demo", "age_only"], "gender_ablations": ["full_demo", "gender_only"]}


def decisions() -> pd.DataFrame:
    """Younger actors get the preference on NormAd only (4/4 vs 0/4); younger receivers on both
    sources (3/4 vs 1/4); prompts without age allow nothing.  Gender has no effect."""
    rows = []
    grid = itertools.product(["m1", "m2"], ["cultureatlas", "normad"], ["balance", "no_balance"],
                             ["full_demo", "age_only", "gender_only", "no_demo"], ["younger", "older"],
                             ["younger", "older"], range(4))
    for model, source, prompt, abl, actor, receiver, k in grid:
        if abl not in SIG["age_ablations"]:
            allow = False
        elif source == "normad" and actor == "younger":
            allow = True
        elif source == "normad":
            allow = False
        else:
            allow = k < (3 if receiver == "younger" else 1)
        rows.append({"model": model, "model_kind": "instruct", "source": source, "system_prompt": prompt,
                     "demo_ablation": abl, "actor_age": actor, "receiver_age": receiver,
                     "actor_gender": "female" if k % 2 else "male", "receiver_gender": "male" if k < 2 else "female",
                     "decision": ALLOW if allow else FOLLOW, "allow": float(allow)})
    d = pd.DataFrame(rows)
    return d.assign(age_pair=d.actor_age + "->" + d.receiver_age,
                    gender_pair=d.actor_gender + "->" + d.receiver_gender)


def test_figure5_effects_cover_every_decision_that_shows_the_attribute_actor_and_receiver():
    d = decisions()
    t = analysis.figure5_demographic_effects(d, SIG).set_index(["model", "factor", "role"])
    # actor age: NormAd 1 vs 0, CultureAtlas (younger and older actors alike) 0.5 -> (1.5/2) - (0.5/2) = 50 pp
    assert t.loc[("all", "age", "actor"), "delta_pp"] == pytest.approx(50.0)
    # receiver age: NormAd 0.5 vs 0.5, CultureAtlas 3/4 vs 1/4 -> 25 pp
    assert t.loc[("all", "age", "receiver"), "delta_pp"] == pytest.approx(25.0)
    assert t.loc[("all", "age", "actor_and_receiver"), "delta_pp"] == pytest.approx(37.5)
    # every source and system prompt of the prompts that show age: younger actors are
    # 2 models x 2 sources x 2 system prompts x 2 ablations x 2 receiver ages x 4
    n = 2 * 2 * 2 * 2 * 2 * 4
    assert t.loc[("all", "age", "actor"), "n_a"] == n
    assert t.loc[("all", "age", "actor_and_receiver"), "n_a"] == 2 * n
    assert t.loc[("m1", "age", "receiver"), "delta_pp"] == pytest.approx(25.0)
    assert t.loc[("all", "gender", "actor"), "n_a"] + t.loc[("all", "gender", "actor"), "n_b"] == 2 * n
    assert set(t.reset_index()["role"]) == {"actor", "receiver", "actor_and_receiver"}
    # the B.9 table (Table 13) keeps its subset: no actor-age effect inside CultureAtlas x balance
    b9 = analysis.demographic_effects(d, SIG).set_index(["model", "factor"])
    assert b9.loc[("all", "actor_age"), "delta_pp"] == pytest.approx(0.0)


def test_figure5_is_drawn_from_the_figure5_table(tmp_path):
    t = analysis.figure5_demographic_effects(decisions(), SIG)
    regions = pd.DataFrame({"region": ["South Asia", "MENA"], "delta_pp": [-2.0, 1.0], "n": [10, 10]})
    out = tmp_path / "figure5.png"
    figures.figure5(t, regions, str(out))
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
