"""The disagreements between a paper's text and its authors' code: format, values, synthetic marks."""

import pandas as pd
import pytest

from cultalign import text_vs_code as tvc
from cultalign.core.paths import workflow_root
from cultalign.core.provenance import write_sidecar
from cultalign.studies import registered

HEAD = "authors_code: {repo: owner/name, commit: " + "a" * 40 + "}\n"
ENTRY = """entries:
  - id: toy.rate
    place: Figure 1
    topic: The rate
    text: pooled over both prompts
    code: the balance prompt only
    code_ref: scripts/x.py
    default: code
    key: toy.prompts
    settings: {code: balance, text: both}
    values:
      code: {result: results/toy/rates.tsv, column: rate, where: {prompts: balance}}
      text: {result: results/toy/rates.tsv, column: rate, where: {prompts: both}}
"""


def _write(tmp_path, text, study="toy"):
    p = tmp_path / "config" / "text_vs_code" / f"{study}.yaml"
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
    return p


def test_both_readings_computed_and_marked_synthetic(tmp_path):
    _write(tmp_path, HEAD + ENTRY)
    res = tmp_path / "results" / "toy" / "rates.tsv"
    res.parent.mkdir(parents=True)
    pd.DataFrame({"prompts": ["balance", "both"], "rate": [0.25, 0.5]}).to_csv(res, sep="\t", index=False)
    write_sidecar(res, job={"rule": "toy", "synthetic_inputs": ["toy.input"]})
    loaded = tvc.load_studies(["toy", "other"], tmp_path)
    assert tvc.result_files(loaded) == ["results/toy/rates.tsv"]
    row = tvc.evaluate(loaded, tmp_path).iloc[0]
    assert (row["value_code"], row["value_text"], row["computed"]) == ("0.25", "0.5", "both")
    assert (row["setting_code"], row["setting_text"]) == ("balance", "both")
    assert row["code_ref"] == "owner/name@aaaaaaa:scripts/x.py"
    assert row["synthetic_inputs"] == "toy.input"


def test_a_missing_table_says_which(tmp_path):
    _write(tmp_path, HEAD + ENTRY)
    row = tvc.evaluate(tvc.load_studies(["toy"], tmp_path), tmp_path).iloc[0]
    assert row["value_code"] == "" and row["computed"].startswith("neither (results/toy/rates.tsv not made")


@pytest.mark.parametrize("change, message", [
    (("default: code", "default: text"), "field why is required"),
    (("id: toy.rate", "id: other.rate"), "field id must start with 'toy.'"),
    (("    code_ref: scripts/x.py\n", ""), "missing field code_ref"),
    (("    key: toy.prompts\n", ""), "field settings needs key"),
    (("column: rate, where: {prompts: both}", "where: {prompts: both}"), "field values.text needs result and column"),
    (("    place: Figure 1\n", "    place: Figure 1\n    colour: red\n"), "unknown field colour"),
])
def test_errors_name_file_entry_and_field(tmp_path, change, message):
    p = _write(tmp_path, HEAD + ENTRY.replace(*change))
    with pytest.raises(tvc.TextCodeError, match=message) as e:
        tvc.load(p)
    assert str(p) in str(e.value) and "entry 1" in str(e.value)


def test_the_projects_files_load():
    """Every study's file in config/text_vs_code/ is valid and names a registered study."""
    folder = workflow_root() / "config" / "text_vs_code"
    files = sorted(folder.glob("*.yaml"))
    assert files
    for f in files:
        assert f.stem in registered(), f
        tvc.load(f)
