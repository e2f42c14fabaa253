"""Generated fields over ``pact.construct.max_field_chars`` are counted and reported, not cut short
by the schema or dropped unseen (construction logic around a fake client)."""

import json

import pandas as pd

from cultalign.models import SamplingParams
from cultalign.models.types import ParsedResult
from cultalign.pact import construct

LONG = "Allow the actor to decline the second helping because they are following a strict low-sugar diet " \
       "that their doctor recommended after a recent check-up."  # 151 characters


class FakeJsonClient:
    """Answers every preference prompt with a fixed item, one of them with a long option."""

    def __init__(self):
        self.schemas = []

    def generate_json(self, reqs, schema, max_attempts=None):
        self.schemas.append(schema)
        out = []
        for k, _ in enumerate(reqs):
            if "scenario_clear" in schema["properties"]:
                v = {"scenario_clear": True, "preference_plausible": True, "distinct": True}
            elif "scenario" in schema["properties"]:
                v = {"scenario": "At a dinner in Peru the actor is offered a second helping."}
            else:
                v = {"cultural_expectation": "Accept a second helping.", "personal_preference": "Eat less sugar.",
                     "preference_type": "habit", "culture_option": "Accept the second helping.",
                     "preference_option": LONG if k == 0 else "Decline the second helping."}
            out.append(ParsedResult(value=v, valid=True, raw=json.dumps(v), attempts=[{}]))
        return out


def rows(n=3):
    return pd.DataFrame({"scenario_id": [f"s{i}" for i in range(n)], "source": "normad", "country": "Peru",
                         "Story": "A story.", "Rule-of-Thumb": "Accept food.", "Gold Label": "yes"})


def test_long_field_is_counted_reported_and_removed_with_a_reason():
    client = FakeJsonClient()
    s = SamplingParams(temperature=0.0, max_new_tokens=10)
    judged, counts = construct.construct_source(rows(), client, "normad", s, s, s, "remove", max_field_chars=120)
    pref_schema = client.schemas[0]["properties"]
    assert all("maxLength" not in pref_schema[f] for f in construct.TEXT_FIELDS)  # never cut short by the schema
    assert judged.loc[0, "fields_over_cap"] == "preference_option"
    assert judged.loc[0, "preference_option"] == LONG  # the text is kept whole
    assert judged.loc[0, "removal_reason"] == "rule:field_over_cap"
    assert judged.loc[1:, "passed"].all()
    c = counts.set_index("quantity")["value"]
    assert c["fields_over_cap"] == 1 and c["removed_rule:field_over_cap"] == 1
    assert c["longest_field_chars"] == len(LONG)


def test_keep_flagged_keeps_but_still_counts_and_no_cap_counts_none():
    s = SamplingParams(temperature=0.0, max_new_tokens=10)
    judged, counts = construct.construct_source(rows(), FakeJsonClient(), "normad", s, s, s, "keep_flagged",
                                                max_field_chars=120)
    assert judged["kept"].all()
    assert counts.set_index("quantity")["value"]["fields_over_cap"] == 1
    judged, counts = construct.construct_source(rows(), FakeJsonClient(), "normad", s, s, s, "remove",
                                                max_field_chars=None)
    assert judged["passed"].all() and counts.set_index("quantity")["value"]["fields_over_cap"] == 0
