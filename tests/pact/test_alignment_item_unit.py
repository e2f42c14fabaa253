"""One alignment item on both sides (appendix F.1, ``pact.alignment.item_unit``): with
scenario_receiver, an item is a scenario with the receiver shown, the no-persona setting has one
answer per item (F.1's K_i = 1, E.2's trivial no-persona consensus) and h_i counts only the
participants who saw that receiver."""

import pandas as pd
import pytest

from cultalign.pact import alignment, survey

# one scenario, two receivers: the participants who saw the older man mostly follow culture, those
# who saw the younger woman mostly allow the preference
HUMANS = [("p1", "India", "older", "male", 1), ("p2", "India", "older", "male", 1),
          ("p3", "Brazil", "older", "male", 1), ("p4", "Brazil", "older", "male", 0),
          ("p5", "India", "younger", "female", 0), ("p6", "Brazil", "younger", "female", 0),
          ("p7", "Brazil", "younger", "female", 1), ("p8", "India", "younger", "female", 0)]


def humans():
    rows = []
    for pid, country, age, gender, f in HUMANS:
        for q in ("personal", "norm"):
            rows.append({"participant": pid, "participant_country": country, "participant_age": "younger",
                         "participant_gender": "female", "scenario_id": "s1", "scenario_country": "Japan",
                         "receiver_age": age, "receiver_gender": gender, "question_type": q, "follow_culture": f})
    return pd.DataFrame(rows)


def model_answers(h):
    """The survey's real requests for these respondents; the model follows culture exactly when the
    receiver is the older man (what the humans who saw him mostly did)."""
    sc = pd.DataFrame({"scenario_id": ["s1"], "scenario": ["x"], "culture_option": ["c"],
                       "preference_option": ["p"]})
    reqs = survey.survey_requests(h, sc, ["compact_json"], None, 0, seed=1)
    return reqs.assign(model="m", follow_culture=(reqs.receiver_age == "older").astype(float))


def test_scenario_receiver_items_have_one_no_persona_answer_and_matching_humans():
    h = humans()
    m = model_answers(h)
    t = alignment.alignment_metrics(m, h, "scenario_receiver").set_index(["question_type", "persona_setting"])
    r = t.loc[("norm", "no_persona")]
    assert r.n_items == 2 and r.k_max == 1  # F.1: K_i = 1 without persona
    assert r.model_agreement == 1.0  # E.2: no-persona consensus is trivially 100%
    # h: older man 3/4, younger woman 1/4; m: 1 and 0 -> |1-0.75| and |0-0.25|
    assert r.rate_mae_item == pytest.approx(0.25)
    assert r.majority_alignment == 1.0
    # one answer per respondent profile (here India and Brazil, same age and gender) who saw the receiver
    assert t.loc[("norm", "persona"), "k_max"] == 2
    assert (t["item_unit"] == "scenario_receiver").all()


def test_scenario_items_pool_the_receivers_on_both_sides():
    h = humans()
    m = model_answers(h)
    r = alignment.alignment_metrics(m, h, "scenario").set_index(["question_type", "persona_setting"]).loc[
        ("norm", "no_persona")]
    assert r.n_items == 1 and r.k_max == 2  # the item was asked once per receiver shown
    assert r.rate_mae_item == pytest.approx(abs(0.5 - 0.5)) and r.model_agreement == 0.5


def test_persona_country_effects_follow_the_item_unit():
    h = humans()
    m = model_answers(h)
    t = alignment.persona_country_effects(m, h, "compact_json", "scenario_receiver")
    r = t[(t.model == "m") & (t.frame == "norm") & (t.persona_country == "India")].iloc[0]
    # India: older man h = 1 (p1, p2), younger woman h = 0 (p5, p8); the model matches both exactly
    assert r.n_items == 2 and r.mae_item_no_persona == pytest.approx(0.0)
    with pytest.raises(ValueError, match="pact.alignment.item_unit"):
        alignment.alignment_metrics(m, h, "receiver")
