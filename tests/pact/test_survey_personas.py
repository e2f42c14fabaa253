"""Persona conditioning of the survey (section 5.3): every respondent profile of an item (or a
seeded sample stratified by participant country), each shown with the receiver its respondents saw."""

import numpy as np
import pandas as pd

from cultalign.pact import survey


def human_responses(seed: int = 1) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Two items; item a answered by 30 US and 6 UK participants, the receiver varying by participant."""
    rng = np.random.default_rng(seed)
    rows = []
    for item, country_sc in (("a", "India"), ("b", "Brazil")):
        for n, pc in enumerate(["United States"] * 30 + ["United Kingdom"] * 6):
            for q in ("personal", "norm"):
                rows.append({"participant": f"{item}{n}", "participant_country": pc,
                             "participant_age": ["18-29", "30-44", "45-59", "60+"][n % 4],
                             "participant_gender": ["female", "male"][(n // 4) % 2] if n < 8 else
                             ["female", "male", "nonbinary"][n % 3],
                             "scenario_id": item, "scenario_country": country_sc,
                             "receiver_age": ["younger", "older"][n % 2],
                             "receiver_gender": ["female", "male"][(n // 2) % 2],
                             "question_type": q, "follow_culture": int(rng.random() < 0.6)})
    h = pd.DataFrame(rows)
    sc = pd.DataFrame({"scenario_id": ["a", "b"], "scenario": ["x", "y"], "culture_option": ["c", "c"],
                       "preference_option": ["p", "p"]})
    return h, sc


def _views(h, item):
    r = h[h.scenario_id == item]
    return set(map(tuple, r[survey.PROFILE + survey.RECEIVER].drop_duplicates().to_numpy()))


def test_every_respondent_profile_with_the_receiver_it_saw():
    h, sc = human_responses()
    req = survey.survey_requests(h, sc, ["compact_json"], None, 0, seed=5)
    for item in ("a", "b"):
        per = req[(req.scenario_id == item) & (req.persona_setting == "persona") & (req.question_type == "norm")]
        got = set(map(tuple, per[["persona_country", "persona_age", "persona_gender", *survey.RECEIVER]].to_numpy()))
        assert got == _views(h, item)  # no cap, no alphabetical cut: both countries, every profile
        assert per["n_participants"].sum() == h[h.scenario_id == item]["participant"].nunique()
        # no-persona prompts: one per receiver the respondents saw, not the most common receiver only
        nop = req[(req.scenario_id == item) & (req.persona_setting == "no_persona") & (req.question_type == "norm")]
        seen = set(map(tuple, h.loc[h.scenario_id == item, survey.RECEIVER].drop_duplicates().to_numpy()))
        assert set(map(tuple, nop[survey.RECEIVER].to_numpy())) == seen and len(seen) == 4


def test_sampled_personas_are_seeded_and_stratified_by_country():
    h, sc = human_responses()
    k = 6
    req = survey.survey_requests(h, sc, ["compact_json"], k, 0, seed=5)
    per = req[(req.persona_setting == "persona") & (req.question_type == "norm") & (req.scenario_id == "a")]
    assert len(per) == k
    views = survey.respondent_views(h[h.scenario_id == "a"])
    share = views.groupby("participant_country").size() / len(views)
    counts = per.groupby("persona_country").size()
    for c, f in share.items():
        assert abs(counts.get(c, 0) - f * k) < 1 + 1e-9  # proportional to the item's profiles
    assert counts.get("United Kingdom", 0) >= 1  # the alphabetical cap kept only "United Kingdom" first...
    assert counts.get("United States", 0) >= 1  # ...and would drop the rest; the sample keeps both
    again = survey.survey_requests(h, sc, ["compact_json"], k, 0, seed=5)
    pd.testing.assert_frame_equal(req, again)
    other = survey.survey_requests(h, sc, ["compact_json"], k, 0, seed=6)
    assert not req[req.persona_setting == "persona"][["persona_age", "persona_gender", "receiver_age"]].equals(
        other[other.persona_setting == "persona"][["persona_age", "persona_gender", "receiver_age"]])
