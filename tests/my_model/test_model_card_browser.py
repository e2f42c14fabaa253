"""The model card as a reviewer sees it: its own HTML file and its entry in the report, opened in a real
browser (headless Chromium, Playwright), on the small run.

The card is the embedded default's (the default model, demo inputs, SYNTHETIC) with the Danish norms left
out of ``my_model.studies`` (a skipped study and its reason on the page) and, where ``../shared/data`` has
it, the PACT authors' figure data (``real_data.pact_site_data``: the per-model published values of PACT).
Checked against the card's own table (``card.tsv``): each headline measure with the model's value and its
95% CI where the measure has one, every published value labelled "published", every figure decoded (no
broken image), each study's inputs marked real or SYNTHETIC, the skipped study with its reason; the page
makes no network request and raises no error.  In the report, the card's entry (its figures named, each
its own entry of the section) loads and shows the same tables."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest
import yaml

from conftest import SHARED_DATA
from cultalign.model_card import MEASURES, NOT_DEFINED, SOURCE_MINE, SOURCE_PUBLISHED, _fmt
from test_report_browser import CHROMIUM, pytestmark  # noqa: F401 (slow; skipped without Chromium or Playwright)
from workflow import SMALL_CONFIG, snakemake

MODEL = "smollm2-135m-instruct"  # the embedded default's model: its card
SITE_DATA = SHARED_DATA / "pact" / "pact_site_summary_data.json"
SKIPPED = {"monopolet": "not in my_model.studies"}


@pytest.fixture(scope="module")
def card_run(small_run, tmp_path_factory) -> Path:
    """A copy of the small run whose card leaves the Danish norms out, and the report of it."""
    work = tmp_path_factory.mktemp("card") / "work"
    shutil.copytree(small_run, work, symlinks=True)
    over = {"my_model": {"studies": ["pact", "personas"]}}
    if SITE_DATA.exists():
        over["real_data"] = {"pact_site_data": str(SITE_DATA)}
    (work / "card_view.yaml").write_text(yaml.safe_dump(over))
    args = ["--configfile", SMALL_CONFIG, "card_view.yaml"]
    out = snakemake(work, "--cores", "1", "model_card", *args, timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    out = snakemake(work, "--cores", "1", *args, "--report", "results/report.html", timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    return work


def _watch(page, problems: list[str]) -> None:
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
    page.on("request", lambda r: None if r.url.startswith(("data:", "file:", "blob:", "about:"))
            else problems.append(f"network request: {r.url}"))


# what the page shows per study: its inputs line, its skip line, and per measure (h3) the table rows
_READ = """() => {
  const out = {};
  let study = null, measure = null;
  for (const el of document.body.children) {
    if (el.tagName === "H2") {
      study = el.innerText.trim(); measure = null; out[study] = {inputs: null, skipped: null, measures: {}}; }
    else if (el.tagName === "H3") {
      measure = el.innerText.trim(); out[study].measures[measure] = {rows: [], note: ""}; }
    else if (study && el.tagName === "P" && el.innerText.startsWith("Inputs: ")) {
      const span = el.querySelector("span");
      out[study].inputs = {text: span.innerText, cls: span.className, color: getComputedStyle(span).color}; }
    else if (study && el.tagName === "P" && el.classList.contains("skipped")) { out[study].skipped = el.innerText; }
    else if (study && measure && el.tagName === "P" && !el.querySelector("img")) {
      out[study].measures[measure].note += el.innerText; }
    else if (study && measure && el.tagName === "TABLE") {
      for (const tr of el.querySelectorAll("tr")) {
        const cells = [...tr.querySelectorAll("td")].map(td => td.innerText.trim());
        if (cells.length) out[study].measures[measure].rows.push({cells, cls: tr.className,
                                                                    style: getComputedStyle(tr).fontStyle});
      }
    }
  }
  return out;
}"""


def test_card_page_as_a_reviewer_sees_it(card_run):
    from playwright.sync_api import sync_playwright

    card_dir = card_run / "results" / "model_card" / MODEL
    rows = pd.read_csv(card_dir / "card.tsv", sep="\t", keep_default_na=False)
    rows["value"] = pd.to_numeric(rows["value"], errors="coerce")
    studies = ["pact", "personas"]
    measures = [m for m in MEASURES if m.study in studies]
    problems: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        _watch(page, problems)
        page.goto((card_dir / "model_card.html").as_uri())
        assert page.locator("h1").inner_text() == f"Model card: {MODEL}"
        shown = page.evaluate(_READ)

        # the skipped study and its reason
        assert shown["monopolet"]["skipped"] == f"Skipped: {SKIPPED['monopolet']}"
        assert not shown["monopolet"]["measures"]
        published_total = 0
        for study in studies:
            s = shown[study]
            assert s["skipped"] is None
            # inputs: the card's mark of the study, styled as synthetic when it is
            mark = rows.loc[(rows["study"] == study) & (rows["source"] == SOURCE_MINE), "inputs"].iloc[0]
            assert s["inputs"]["text"] == mark
            assert mark.startswith("SYNTHETIC: ") or mark == "real"
            assert (s["inputs"]["cls"] == "synthetic") == mark.startswith("SYNTHETIC")
            for m in (m for m in measures if m.study == study):
                table = s["measures"][m.label]["rows"]
                want = rows[rows["measure"] == m.name]
                assert len(table) == len(want), (m.name, table)
                mine = [r for r in table if r["cells"][2] == SOURCE_MINE]
                assert mine, f"{m.name}: no value of the model"
                for r, (_, w) in zip(table, want.iterrows()):
                    value = _fmt(w["value"]) or NOT_DEFINED  # never a blank cell
                    assert r["cells"][:4] == [w["key"], w["model"], w["source"], value], (m.name, r)
                for r in mine:
                    assert r["cells"][1] == MODEL, (m.name, r)
                    if m.ci:  # the measure's 95% CI
                        assert " to " in r["cells"][4], (m.name, r)
                # published values: labelled, in the published style, a claim named
                pub = [r for r in table if r["cells"][2] == SOURCE_PUBLISHED]
                assert all(r["cls"] == "published" and r["style"] == "italic" and r["cells"][6] for r in pub), pub
                assert bool(pub) == ("No published value" not in s["measures"][m.label]["note"]), m.name
                published_total += len(pub)
        assert published_total == (rows["source"] == SOURCE_PUBLISHED).sum()

        # a figure per measure of the studies run, each decoded
        imgs = page.locator("img")
        assert imgs.count() == len(measures)
        assert [imgs.nth(i).get_attribute("alt") for i in range(imgs.count())] == [m.label for m in measures]
        for i in range(imgs.count()):
            img = imgs.nth(i)
            img.scroll_into_view_if_needed()
            page.wait_for_function("el => el.complete", arg=img.element_handle())
            assert img.evaluate("el => el.naturalWidth > 0 && el.naturalHeight > 0"), f"broken image {i}"

        # the card's entry in the report: the same page with each figure named, the figures the section's
        # other entries (the card with its figures embedded is a data URI over the 2 MiB a browser loads)
        report = card_run / "results" / "report.html"
        page.goto(report.as_uri())
        results = page.evaluate("() => results")
        entry = f"results/model_card/{MODEL}/model_card_report.html"
        assert entry in results and results[entry]["mime_type"] == "text/html"
        assert len(results[entry]["data_uri"]) < 2 * 1024 * 1024
        sections = page.evaluate("() => categories")["Model card"]
        assert list(sections) == [MODEL]
        assert set(sections[MODEL]) == {entry, f"results/model_card/{MODEL}/card.html",
                                        *(f"results/model_card/{MODEL}/{m.name}.png" for m in measures)}
        page.get_by_role("link", name="Model card", exact=True).click()
        row = page.locator("tbody tr").filter(has_text=f"Model card of {MODEL}")
        row.first.locator("a[iconname=eye]").click()
        doc = page.frame_locator("iframe").first
        assert doc.locator("h1").inner_text() == f"Model card: {MODEL}"
        assert doc.locator("p.figure").count() == len(measures) and doc.locator("img").count() == 0
        assert doc.locator("p.skipped").inner_text() == f"Skipped: {SKIPPED['monopolet']}"
        assert doc.locator("tr.published").count() == published_total
        browser.close()
    assert problems == []

    # what a reviewer sees, for the record (-s)
    mine = rows[rows["source"] == SOURCE_MINE]
    print(f"\n[model card] {MODEL}: {len(measures)} figures ({', '.join(m.name for m in measures)}); "
          f"{len(mine)} values of the model, {published_total} published values; skipped: {SKIPPED}")
    for m in measures:
        d = rows[rows["measure"] == m.name]
        values = [_fmt(v) or NOT_DEFINED for v in d.loc[d["source"] == SOURCE_MINE, "value"]]
        print(f"  {m.name}: model {', '.join(values)}"
              f"; published {int((d['source'] == SOURCE_PUBLISHED).sum())}")
    print("  inputs: " + "; ".join(f"{s}: {v}" for s, v in
                                   mine.drop_duplicates("study").set_index("study")["inputs"].items()))
