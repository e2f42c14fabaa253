"""The prompt templates render exactly as before (request-cache keys and greedy outputs depend on
every byte), with $name placeholders; braces in templates and values are literal text."""

import re

import pytest

from cultalign.personas.prompts import PROMPTS


def test_norm_prompt_pinned():
    assert PROMPTS.render("norm", country="Japan", context="[1] People bow.", topic="greetings") == (
        "Below are passages about everyday life in Japan.\n\n[1] People bow.\n\n"
        "Using these passages, state one cultural norm of Japan about greetings: a shared expectation of how "
        "people there usually behave. Write one or two sentences, without numbering.\n"
        'Return JSON: {"norm": "..."}')


def test_question_and_persona_prompts_pinned():
    q = PROMPTS.render("question", scenario="Ken bows {0} $x.", country="Japan", trait_name="Extraversion",
                       trait_hint="sociability")
    assert q == (
        'Scenario set in Japan: "Ken bows {0} $x."\n\n'
        'Write one question that puts the reader inside this scenario ("Imagine you are ...") and asks what they '
        "would do, so that the answer reveals their level of Extraversion (sociability).\n"
        "Then write five answers in the first person, from the highest level of Extraversion (r1_high) to the "
        "lowest (r5_low). Each answer is one short sentence.\n"
        'Return JSON: {"question": "...", "r1_high": "...", "r2_fairly_high": "...", "r3_medium": "...", '
        '"r4_fairly_low": "...", "r5_low": "..."}')
    assert PROMPTS.render("persona", country="Japan", count="two", norms="A and B") == (
        "Imagine you are someone born and raised in Japan. You are very familiar with Japan's culture and "
        "traditions and practice many of them, two of which include: A and B.")


def test_templates_use_one_placeholder_syntax():
    for name in PROMPTS.names():
        text = PROMPTS.text(name)
        assert not re.search(r"\{[a-z_0-9]+\}", text), name  # no str.format placeholders left
    with pytest.raises(KeyError, match=r"\$country"):
        PROMPTS.render("persona", count="two", norms="A and B")
