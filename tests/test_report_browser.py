"""The Snakemake report of the small run, opened in a real browser (headless Chromium from
apt, driven by Playwright from PyPI): it renders without page errors or network requests,
every figure and every table of the run is in it, each shows in the page (tables as HTML
tables, not downloads) with its caption, and the entries follow the papers' order."""

from __future__ import annotations

import html
import importlib.util
import re
import shutil
from pathlib import Path

import pytest

from workflow import SMALL_CONFIG, snakemake

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium; "
                                                "setup/install.sh installs it)"),
    pytest.mark.skipif(importlib.util.find_spec("playwright") is None,
                       reason="playwright is not installed (requirements/cpu.txt; setup/install.sh)"),
]


@pytest.fixture(scope="module")
def report_file(small_run, tmp_path_factory) -> Path:
    """The report of the small run, built in a copy of it."""
    work = tmp_path_factory.mktemp("report") / "work"
    shutil.copytree(small_run, work, symlinks=True)
    out = snakemake(work, "--cores", "1", "--configfile", SMALL_CONFIG, "--report", "results/report.html",
                    timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    return work / "results" / "report.html"


def watch_page(page, problems: list[str]) -> None:
    """Record the page's errors, console errors and any request that leaves the file (network)."""
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
    page.on("request", lambda r: None if r.url.startswith(("data:", "file:", "blob:", "about:"))
            else problems.append(f"network request: {r.url}"))


def _words(text: str) -> str:
    """Text with its whitespace collapsed and none before closing punctuation or after an opening
    bracket (a tag taken out of "<b>Facts</b>, not" leaves "Facts , not"; the page shows "Facts, not")."""
    return re.sub(r"\(\s+", "(", re.sub(r"\s+([,.;:!?)])", r"\1", " ".join(text.split())))


def _text(caption_html: str) -> str:
    return _words(html.unescape(re.sub(r"<[^>]+>", " ", caption_html)))


def test_report_shows_every_figure_and_table_with_its_caption(report_file):
    from playwright.sync_api import expect, sync_playwright

    work = report_file.parents[1]
    figures = {str(p.relative_to(work)) for p in (work / "results").glob("*/figures/*.png")}
    pages = {str(p.relative_to(work)) for p in (work / "results").rglob("*.html")
             if p != report_file and (p.with_suffix(".tsv").exists() or p.with_suffix(".csv").exists())}
    assert figures and pages
    url = report_file.as_uri()
    problems: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1600, "height": 1000})
        watch_page(page, problems)
        page.goto(url)
        results = page.evaluate("() => results")
        categories = page.evaluate("() => categories")

        # every figure and every table page of the run is an entry; nothing is a download only
        assert figures <= set(results), sorted(figures - set(results))
        assert pages <= set(results), sorted(pages - set(results))
        assert {r["mime_type"] for r in results.values()} <= {"image/png", "text/html"}, {
            p: r["mime_type"] for p, r in results.items() if r["mime_type"] not in ("image/png", "text/html")}
        for path, r in results.items():
            assert _text(r["caption"]), f"{path}: no caption"
            assert "system-message" not in r["caption"] and "problematic" not in r["caption"], (
                f"{path}: the caption has reStructuredText errors")
            assert {"no.", "paper", "result", "inputs"} <= set(r["labels"] or {}), path

        # the sections and the entries in them follow the papers' order
        pact = categories["PACT"]
        assert sorted(pact) == ["1. Main text", "2. Appendix"]
        main = [results[p]["labels"]["paper"] for p in sorted(pact["1. Main text"],
                                                                key=lambda p: results[p]["labels"]["no."])]
        assert main == ["Figure 3", "Figure 4", "Figure 5", "Figure 6", "Figure 7"]

        # click through the report as a reader: each category, each section, each entry
        by_uri = {r["data_uri"]: p for p, r in results.items()}
        assert len({_uri_key(u) for u in by_uri}) == len(results), "two entries with the same content"
        shown: set[str] = set()
        for category, sections in sorted(categories.items()):
            for section, paths in sorted(sections.items()):
                # the page is loaded once per section (a load of the 10 MB report takes about a
                # second); between entries the list comes back through the breadcrumbs, as a reader
                # goes back
                page.goto(url)
                name = category if len(categories) > 1 else "Results"
                page.get_by_role("link", name=name, exact=True).click()
                if len(sections) > 1:
                    page.get_by_role("link", name=section, exact=True).click()
                rows = page.locator("tbody tr")
                rows.first.wait_for()
                listed = [rows.nth(i).locator("td").first.inner_text() for i in range(rows.count())]
                assert listed == sorted(listed), f"{category} / {section}: rows out of order {listed}"
                assert rows.count() == len(paths), f"{category} / {section}: {rows.count()} rows, {len(paths)} entries"
                for i in range(len(paths)):
                    if i:  # from the entry's information back to the section's list
                        page.locator("nav ol a").nth(-2).click()
                        expect(rows).to_have_count(len(paths))
                        expect(rows.first.locator("td").first).to_have_text(listed[0])
                    rows.nth(i).locator("a[iconname=eye]").click()
                    path = _check_content(page, by_uri, problems, shown_before=shown)
                    shown.add(path)
                    rows.nth(i).locator("a[iconname=information-circle]").click()
                    page.get_by_text("Description").first.wait_for()
                    want = _text(results[path]["caption"])[:60]
                    if want not in _words(page.inner_text("body")):
                        problems.append(f"{path}: caption not shown ({want!r})")
        browser.close()
    assert shown == set(results), sorted(set(results) - shown)
    assert problems == []


def _uri_key(uri: str) -> str:
    """A short key of a data URI (its length and its end) to wait on in the page without sending
    megabytes of URIs to it."""
    return f"{len(uri)}:{uri[-96:]}"


def _check_content(page, by_uri: dict[str, str], problems: list[str], shown_before: set[str]) -> str:
    """The entry on display, once it replaced the one before (the page is not reloaded between
    entries, so the wait is for a figure or table page not shown yet): a figure (a decoded PNG)
    or a table page (an HTML table with a header row)."""
    waiting = [_uri_key(u) for u, p in by_uri.items() if p not in shown_before]
    page.wait_for_function(
        """keys => {
            const el = document.querySelector("img[src^='data:image/png'], iframe");
            if (el === null) return false;
            const src = el.getAttribute("src") || "";
            return keys.includes(src.length + ":" + src.slice(-96));
        }""", arg=waiting)
    img = page.locator("img[src^='data:image/png']")
    frame = page.locator("iframe")
    if img.count():
        page.wait_for_function("el => el.complete && el.naturalWidth > 0", arg=img.first.element_handle())
        return by_uri[img.first.get_attribute("src")]
    path = by_uri[frame.first.get_attribute("src")]
    doc = page.frame_locator("iframe").first
    doc.locator("table").first.wait_for()
    if doc.locator("th").count() == 0:
        problems.append(f"{path}: table page without a header row")
    return path
