"""The errata page of the real-data scorecard as a reviewer sees it, opened in a real browser (headless
Chromium from apt, driven by Playwright): the run in a copy of the checkout reads ../shared/data and the
papers' texts; the page shows every finding once (as many rows as claims_errata.csv, no finding twice),
its status, kind, checks, evidence with both readings where the text allows two, and what the workflow
does about it; the paragraphs above the table count the findings and the checks that could have failed,
and name the coverage checks apart, with the numbers of claims_checks.csv; the page makes no network
request and raises no error."""

from __future__ import annotations

import pandas as pd
import pytest

from test_report_browser import CHROMIUM, pytestmark, watch_page  # noqa: F401 (slow; skipped without Chromium)


@pytest.fixture(scope="module")
def real_run(tmp_path_factory):
    from conftest import SHARED_DATA, copy_worktree
    from workflow import snakemake

    if not SHARED_DATA.is_dir():
        pytest.skip(f"real shared data not present at {SHARED_DATA}")
    shared_data = SHARED_DATA
    tmp = tmp_path_factory.mktemp("errata")
    work = copy_worktree(tmp / "work", link_models=False)
    (tmp / "shared").symlink_to(shared_data.parent)  # ../shared/data and ../shared/seeds from the copy
    out = snakemake(work, "--cores", "1", "real_data_claims", "--configfile", "config/real-data.yaml", timeout=900)
    assert out.returncode == 0, out.stderr[-4000:]
    return work / "results" / "real_data"


def _open(page_file, problems):
    from playwright.sync_api import sync_playwright

    pw = sync_playwright().start()
    browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
    page = browser.new_page(viewport={"width": 1600, "height": 1000})
    watch_page(page, problems)
    page.goto(page_file.as_uri())
    return pw, browser, page


def test_errata_page_shows_each_finding_once_with_its_evidence(real_run):
    errata = pd.read_csv(real_run / "claims_errata.csv", keep_default_na=False)
    checks = pd.read_csv(real_run / "claims_checks.csv", keep_default_na=False)
    problems: list[str] = []
    pw, browser, page = _open(real_run / "claims_errata.html", problems)
    try:
        headers = page.locator("thead th").all_inner_texts()
        assert headers == ["finding", "paper", "kind", "status", "place", "statement", "evidence", "checks",
                           "resolution"]
        rows = page.locator("tbody tr")
        assert rows.count() == len(errata) > 0
        shown = [[c.strip() for c in rows.nth(i).locator("td").all_inner_texts()] for i in range(rows.count())]
        findings = [r[0] for r in shown]
        assert findings == list(errata["finding"]) and len(set(findings)) == len(findings)   # each once
        by = {r[0]: dict(zip(headers, r)) for r in shown}
        assert {r["status"] for r in by.values()} <= {"inconsistent", "conditional", "text and code disagree"}
        assert all(r["resolution"] and r["resolution"] != "not recorded" for r in by.values())
        # a finding whose verdict depends on a reading shows both readings and which one holds
        za = by["personas.finding.za_up_to"]
        assert za["status"] == "conditional"
        assert "its row (ZA)" in za["evidence"] and "its column (MCS BFI)" in za["evidence"]
        assert "personas.consistency.za_up_to (conditional)" in za["checks"]
        assert "derived: up to | personas §5.1 25.9% #1 (conditional)" in za["checks"]
        a1 = by["monopolet.consistency.a1_samples"]
        assert "unique samples" in a1["evidence"] and "the shared ones twice" in a1["evidence"]
        # one finding for Table 2 vs Table 7, with its five failing checks and the seven that hold
        t27 = by["personas.finding.table2_vs_table7"]
        assert t27["checks"].count("(does not hold)") == 5 and "7 hold" in t27["checks"]
        # the paragraphs above the table: findings, the checks that could have failed, the coverage apart
        notes = page.locator("p.note").all_inner_texts()
        assert len(notes) == 3
        assert notes[0].startswith(f"{len(errata)} findings (")
        cov = checks["coverage"] != ""
        assert f"Evidence: {int((~cov).sum())} checks that could have failed" in notes[1]
        assert notes[2].startswith(f"Coverage, not evidence: {int(cov.sum())} checks that could not fail")
        assert page.locator("a[download='claims_errata.csv']").count() == 1
        # the summary page counts the findings and the coverage checks apart
        page.goto((real_run / "claims_summary.html").as_uri())
        kinds = set(page.locator("tbody tr td:nth-child(2)").all_inner_texts())
        assert any(k.startswith("findings (") for k in kinds)
        assert any(k.startswith("checks that could fail (") for k in kinds)
        assert "coverage: checks that cannot fail (metric bounds)" in kinds
    finally:
        browser.close()
        pw.stop()
    assert problems == []
