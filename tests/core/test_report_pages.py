"""The report shows tables in the page: each reported table gets an HTML page beside it
(cultalign.core.htmltables, written by Job.write_table), and every report entry carries the
labels that order it as in the paper (paper_report, rules/common.smk)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

from cultalign.core.htmltables import format_cell, html_path_of, html_table
from cultalign.core.job import Job

ROOT = Path(__file__).resolve().parents[2]
RULE_FILES = sorted((ROOT / "rules").rglob("*.smk"))


def test_cells_are_rounded_for_reading_and_missing_values_marked():
    assert format_cell(3) == ("3", "num")
    assert format_cell(np.int64(126384)) == ("126,384", "num")
    assert format_cell(0.123456) == ("0.1235", "num")
    assert format_cell(12.3456) == ("12.35", "num")
    assert format_cell(2.0) == ("2", "num")
    assert format_cell(0.00001234)[0] == "1.234e-05"
    assert format_cell(float("nan")) == ("\u2013", "na")
    assert format_cell("Brazil") == ("Brazil", "text")


def test_page_escapes_text_marks_synthetic_inputs_and_links_the_full_table(tmp_path):
    src = tmp_path / "t.tsv"
    df = pd.DataFrame({"country": ["<b>x</b>", "Japan"], "W": [0.5, np.nan]})
    df.to_csv(src, sep="\t", index=False)
    page = html_table(df, title="t.tsv", synthetic_inputs=["pact.human.prolific_export"], source=src)
    assert "&lt;b&gt;x&lt;/b&gt;" in page and "<b>x</b>" not in page
    assert "SYNTHETIC inputs" in page and "pact.human.prolific_export" in page
    assert 'download="t.tsv"' in page and "2 rows" in page
    assert page.count("<tr>") == 3  # header + two rows
    real = html_table(df, title="t.tsv")
    assert "SYNTHETIC" not in real
    many = html_table(pd.DataFrame({"a": range(30)}), title="a", max_rows=10)
    assert "the first 10 rows are shown" in many and many.count("<tr>") == 11


def test_job_writes_the_page_only_when_the_rule_declares_it(tmp_path, restore_streams):
    from conftest import FakeSnakemake

    shown, hidden = tmp_path / "shown.tsv", tmp_path / "hidden.tsv"
    job = Job(FakeSnakemake(tmp_path, [shown, html_path_of(shown), hidden],
                            params={"synthetic_inputs": ["personas.human.path"]}))
    df = pd.DataFrame({"trait": ["O", "C"], "W": [0.1, 0.2]})
    job.write_table(df, shown)
    job.write_table(df, hidden)
    page = html_path_of(shown).read_text()
    assert "<td class=\"text\">O</td>" in page and "personas.human.path" in page
    assert not html_path_of(hidden).exists()


def _report_calls(text: str) -> list[str]:
    """The source of each report(...) / paper_report(...) / personas_report(...) call."""
    calls = []
    for m in re.finditer(r"\b(report|paper_report|personas_report)\(", text):
        depth, i = 0, m.end() - 1
        while True:
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
            if depth == 0:
                break
        calls.append(text[m.start():i])
    return calls


def test_every_report_entry_is_labelled_and_no_table_goes_in_as_a_download():
    plain = []
    for f in RULE_FILES:
        for call in _report_calls(f.read_text()):
            if call.startswith("report(") and "def paper_report" not in call:
                plain.append(f"{f.relative_to(ROOT)}: {call[:80]}")
            if re.search(r'"[^"]+\.(tsv|csv)"', call):
                plain.append(f"{f.relative_to(ROOT)}: a table file goes into the report: {call[:80]}")
    # the one bare report() is the one inside paper_report itself
    common = (ROOT / "rules" / "common.smk").read_text()
    assert "return report(" in common
    assert [p for p in plain if "return report(" not in p and "rules/common.smk" not in p] == []


def test_paper_figures_follow_one_naming_scheme():
    """results/<study>/figures/figure<N>[_<part>].png (an appendix figure without a number:
    appendix_<section>_<what>.png)."""
    names = set()
    for f in RULE_FILES:
        text = f.read_text()
        names |= set(re.findall(r"results/\w+/figures/([^\"/]+)\.png", text))
        m = re.search(r"PERSONAS_FIGURES = \[([^\]]*)\]", text)
        if m:
            names |= set(re.findall(r'"([^"]+)"', m.group(1)))
    names = {n for n in names if n not in ("{f}",)}
    assert {"figure{n}", "figure3", "figure12"} <= names  # PACT's pattern, monopolet's, personas'
    bad = [n for n in names if not re.fullmatch(r"figure(\d+|\{n\})(_[a-z0-9]+)?|appendix_[a-z0-9_]+", n)]
    assert bad == []


def test_every_caption_is_valid_restructuredtext():
    """A caption with rst errors shows red error boxes in the report (e.g. ``|x|`` is a
    substitution, ``*_x`` an unfinished emphasis)."""
    import io

    from docutils.core import publish_parts

    bad = {}
    for f in sorted((ROOT / "report").rglob("*.rst")):
        warnings = io.StringIO()
        publish_parts(f.read_text(), writer_name="html", settings_overrides={"warning_stream": warnings})
        if warnings.getvalue():
            bad[str(f.relative_to(ROOT))] = warnings.getvalue()
    assert bad == {}


def test_no_report_section_holds_exactly_two_entries():
    """Snakemake's report takes a label with two values, each on half of a section's entries, for a
    toggle between two versions of one result: a section of two entries that differ in `result`
    only then shows a blank page (the claims section once did).  Every section whose category and
    section are literals in the rule files has one entry or more than two."""
    calls = re.compile(r'paper_report\((.*?)\n\s*\)', re.S)
    counts: dict[tuple[str, str], int] = {}
    for f in RULE_FILES:
        for body in calls.findall(f.read_text()):
            cat = re.search(r'category="([^"]+)"', body)
            sec = re.search(r'section="([^"]+)"', body)
            if cat and sec:
                counts[cat.group(1), sec.group(1)] = counts.get((cat.group(1), sec.group(1)), 0) + 1
    assert counts, "no paper_report call found"
    assert not [k for k, n in counts.items() if n == 2], {k: n for k, n in counts.items() if n == 2}
