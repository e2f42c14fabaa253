"""Persona priming: the paper's prompt verbatim (section 4) and norms drawn per item, seeded."""

import json

import pandas as pd
import pytest

from cultalign.personas.evaluate import Priming, mcs_score_items, oeg_requests, persona_prompt

# section 4 of the paper, verbatim (the web text's typographic apostrophe written as ')
PAPER = ("Imagine you are someone born and raised in {country}. You are very familiar with {country}'s culture "
         "and traditions and practice many of them, two of which include: {norm1} and {norm2}.")
POOL = [f"{k}. Norm number {k} of the country matters." for k in range(1, 11)]


def _items(n):
    return pd.DataFrame([{"instrument": "cp", "item_id": str(k), "trait": "E", "format": "choice",
                          "context": f"Situation {k}.", "question": "What do you do?",
                          "options": json.dumps(["I go.", "I stay."]), "scores": "[5, 1]", "keyed": ""}
                         for k in range(n)])


def test_prompt_is_the_papers_verbatim():
    got = persona_prompt("Japan", ["Harmony within the group is valued.", "people arrive on time"])
    assert got == PAPER.format(country="Japan", norm1="Harmony within the group is valued",
                               norm2="people arrive on time")


def test_norms_drawn_per_item_seeded_not_the_first_two():
    p = Priming("Japan", POOL, 2, seed=11, country="japan")
    draws = [tuple(p.norms_for("cp", k)) for k in range(40)]
    assert all(len(set(d)) == 2 for d in draws)
    assert len(set(draws)) > 10  # items name different norms
    assert sum(d == tuple(POOL[:2]) for d in draws) < 5  # not always the first two
    used = {n for d in draws for n in d}
    assert len(used) == len(POOL)
    again = Priming("Japan", POOL, 2, seed=11, country="japan")
    assert [tuple(again.norms_for("cp", k)) for k in range(40)] == draws  # reproducible
    other = Priming("Japan", POOL, 2, seed=12, country="japan")
    assert [tuple(other.norms_for("cp", k)) for k in range(40)] != draws
    n1, n2 = draws[0]
    assert p({"instrument": "cp", "item_id": 0}) == PAPER.format(
        country="Japan", norm1=n1.split(". ", 1)[1].rstrip("."), norm2=n2.split(". ", 1)[1].rstrip("."))


def test_norm_count_is_configurable_and_checked():
    p = Priming("Japan", POOL, 3, seed=1, country="japan")
    text = p({"instrument": "cp", "item_id": "5"})
    assert "three of which include: " in text and text.count(" matters") == 3
    with pytest.raises(ValueError, match="personas.priming_n_norms"):
        Priming("Japan", POOL[:2], 3, seed=1, country="japan")
    with pytest.raises(ValueError, match="personas.priming_n_norms"):
        Priming("Japan", POOL, 1, seed=1, country="japan")


def test_requests_carry_each_items_own_persona():
    p = Priming("Japan", POOL, 2, seed=3, country="japan")
    items = _items(6)
    score_items, _ = mcs_score_items(items, p, "label", 3, "japan")
    systems = [it.messages[0][1] for it in score_items]
    assert systems == [p(r) for _, r in items.iterrows()]
    assert len(set(systems)) > 1
    reqs = oeg_requests(items, p, 3, "japan", {"temperature": 0.0, "max_new_tokens": 8})
    assert [r.messages[0][1] for r in reqs] == systems
    assert [json.loads(c) for c in p.column(items)] == [p.norms_for("cp", k) for k in items["item_id"]]
