"""The full-dataset LLM judge is its own model role (appendix A.5: GPT-5.4-mini; construction:
GPT-4o): ``pact.judge_model``, rule pact_judge, construction logic around fake clients."""

import json
import re
from pathlib import Path

import pandas as pd

from cultalign.config import load_config
from cultalign.core.tables import read_tsv, write_tsv
from cultalign.models import SamplingParams
from cultalign.models.types import ParsedResult
from cultalign.pact import construct

ROOT = Path(__file__).resolve().parents[2]
S = SamplingParams(temperature=0.0, max_new_tokens=10)


class FakeStageClient:
    """Answers each construction stage with a fixed item and records which stages it was asked."""

    def __init__(self, judge_says: bool = True):
        self.stages, self.judge_says = [], judge_says

    def generate_json(self, reqs, schema, max_attempts=None):
        props = schema["properties"]
        stage = "judge" if "scenario_clear" in props else "rewrite" if "scenario" in props else "preference"
        self.stages.append(stage)
        if stage == "judge":
            v = {"scenario_clear": self.judge_says, "preference_plausible": True, "distinct": True}
        elif stage == "rewrite":
            v = {"scenario": "At a dinner in Peru the actor is offered a second helping."}
        else:
            v = {"cultural_expectation": "Accept a second helping.", "personal_preference": "Eat less sugar.",
                 "preference_type": "habit", "culture_option": "Accept the second helping.",
                 "preference_option": "Decline the second helping."}
        return [ParsedResult(value=v, valid=True, raw=json.dumps(v), attempts=[{}]) for _ in reqs]


def rows(n=2):
    return pd.DataFrame({"scenario_id": [f"s{i}" for i in range(n)], "source": "normad", "country": "Peru",
                         "Story": "A story.", "Rule-of-Thumb": "Accept food.", "Gold Label": "yes"})


def test_judge_runs_on_its_own_client_over_the_prepared_table(tmp_path):
    builder, judge = FakeStageClient(), FakeStageClient(judge_says=False)
    items = construct.prepare_source(rows(), builder, "normad", S, S)
    assert builder.stages == ["preference", "rewrite"]
    path = tmp_path / "normad_rewritten.tsv"
    write_tsv(items, path)  # the judge rule reads the construction rule's table back
    judged, counts = construct.judge_source(read_tsv(path), judge, "normad", S, "remove")
    assert judge.stages == ["judge"] and builder.stages == ["preference", "rewrite"]
    assert (judged["removal_reason"] == "flagged:scenario_clear").all() and not judged["kept"].any()
    assert counts.set_index("quantity")["value"]["removed_flagged:scenario_clear"] == 2
    # one client for both roles (the embedded default) gives the same items as before the split
    one = FakeStageClient(judge_says=False)
    both, _ = construct.construct_source(rows(), one, "normad", S, S, S, "remove")
    assert one.stages == ["preference", "rewrite", "judge"]
    assert both["removal_reason"].tolist() == judged["removal_reason"].tolist()


def test_paper_config_names_the_papers_judge_and_the_rule_uses_the_role():
    config = load_config(ROOT / "config" / "config.yaml", ROOT / "config" / "paper.yaml")
    paper = config["pact"]
    assert paper["construction_model"] == "gpt-4o" and paper["judge_model"] == "gpt-5.4-mini"
    # GPT-5.4-mini reasons before it answers, inside max_completion_tokens: a budget for the answer
    # alone (40 tokens) would come back empty, so the model's reasoning reserve is added to it
    judge = config["models"][paper["judge_model"]]
    assert judge["family"] == "gpt-5" and judge["reasoning_tokens"] >= 1024
    assert paper["construct"]["judge"]["max_new_tokens"] + judge["reasoning_tokens"] >= 1024
    default = load_config(ROOT / "config" / "config.yaml")["pact"]
    assert default["judge_model"] is None  # the embedded default: the construction model judges
    rules = (ROOT / "rules" / "pact" / "construct.smk").read_text()
    judge_rule = re.search(r"^rule pact_judge:\n(.*?)(?=^rule |\Z)", rules, re.S | re.M).group(1)
    assert "llm=llm_of(pact_judge_model())" in judge_rule and "pact_construction_model" not in judge_rule
    build_rule = re.search(r"^rule pact_construct:\n(.*?)(?=^rule |\Z)", rules, re.S | re.M).group(1)
    assert "pact.construct.judge" not in build_rule
    common = (ROOT / "rules" / "pact" / "common.smk").read_text()
    assert 'PACT["judge_model"] or pact_construction_model()' in common
