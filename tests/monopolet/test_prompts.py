"""The study's prompts render byte for byte as they always have (request-cache
keys and greedy outputs depend on it): pinned texts and hashes, computed with
the rendering the study used before its templates moved to PromptSet."""

from cultalign.core.provenance import text_hash
from cultalign.monopolet.matching import prompt_hashes
from cultalign.monopolet.prompts import PROMPTS, render

NAMES = ["ask_advice", "check_intro", "extract_dilemma", "extract_solutions_answer", "extract_solutions_panel",
         "judge_match", "name_topic", "postprocess_solutions"]


def test_every_template_is_in_the_prompt_set():
    assert PROMPTS.names() == NAMES
    assert set(PROMPTS.hashes(*NAMES)) == set(NAMES)
    assert set(prompt_hashes()) == {"judge_match", "judge_match_examples"}


def test_placeholder_at_the_start_renders_without_the_values_whitespace():
    assert render("ask_advice", dilemma="  Naboen larmer hver aften. \n") == (
        "Naboen larmer hver aften. \n\n\nHvad synes du, jeg skal gøre?")


def test_placeholder_at_the_end_renders_without_the_values_whitespace():
    text = render("judge_match", dilemma="Naboen larmer.", candidate="Tal med naboen",
                  reference="Ring til politiet \n")
    assert text.endswith("Dilemma: Naboen larmer.\nSolution A: Tal med naboen\nSolution B: Ring til politiet")
    assert text_hash(text) == "3707a112743e31b5"


def test_extraction_prompt_is_pinned():
    text = render("extract_dilemma", summary="Naboen larmer.", section="VAERT: Min nabo larmer.\nANNA: Tal med ham.")
    assert (len(text), text_hash(text)) == (620, "2eaa8708f979bd7a")
