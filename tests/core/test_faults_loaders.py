"""Fault injection for every input loader: a real malformed file written in tmp_path, and the error
must name the file, the line (1-based, as an editor shows it), the field and, where a config key
points to the file, the key (issue 13, item 2).  One test per fault: test_fault_<loader>_<fault>.

The malformed files start from the project's own demo inputs (resources/demo/...) or from files the
project's writers make (the demo PDF writer, the Prolific export writer), then get one fault each.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cultalign.core import inputs
from cultalign.core.inputs import InputError

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "resources" / "demo"


@pytest.fixture(autouse=True)
def _fresh_keys(monkeypatch):
    """Each test starts with no registered config keys (a job registers its own)."""
    monkeypatch.setattr(inputs, "_KEYS", {})


def expect(exc: pytest.ExceptionInfo, path: Path, *, line: int | None = None, field: str | None = None,
           key: str | None = None, says: str | None = None) -> str:
    """The message names the file, the line, the field and the key (each when given)."""
    msg = str(exc.value)
    assert isinstance(exc.value, InputError), type(exc.value)
    assert msg.startswith(str(path)), msg
    if line is not None:
        assert f", line {line}" in msg and exc.value.row == line, msg
    if field is not None:
        assert f"field '{field}'" in msg and exc.value.field == field, msg
    if key is not None:
        assert f"(file set by config key '{key}')" in msg, msg
    if says is not None:
        assert says in msg, msg
    return msg


def _keyed(path: Path, key: str) -> Path:
    inputs.register_keys({path: key})
    return path


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


# -- NormAd (pact/ingest.py) ---------------------------------------------------------------------
NORMAD_KEY = "pact.sources.normad.path"


def _normad(tmp_path, mutate=None) -> Path:
    lines = _lines(DEMO / "pact" / "normad_demo.csv")
    if mutate:
        lines = mutate(lines)
    p = tmp_path / "normad.csv"
    p.write_bytes(b"".join(lines))
    return _keyed(p, NORMAD_KEY)


def test_fault_normad_empty_file(tmp_path):
    from cultalign.pact.ingest import load_normad

    p = _normad(tmp_path, lambda lines: [])
    with pytest.raises(InputError) as e:
        load_normad(p)
    expect(e, p, line=1, key=NORMAD_KEY, says="empty")


def test_fault_normad_non_utf8_bytes(tmp_path):
    from cultalign.pact.ingest import load_normad

    def latin1(lines):
        lines[4] = lines[4].replace(b"a", "\u00e5".encode("latin-1"), 1)  # 'å' as Latin-1: byte 0xe5
        return lines
    p = _normad(tmp_path, latin1)
    with pytest.raises(InputError) as e:
        load_normad(p)
    expect(e, p, line=5, key=NORMAD_KEY, says="not utf-8 text: byte 0xe5")


def test_fault_normad_ragged_row_extra_field(tmp_path):
    from cultalign.pact.ingest import load_normad

    def extra(lines):
        lines[4] = lines[4].rstrip(b"\r\n") + b",stray\r\n"
        return lines
    p = _normad(tmp_path, extra)
    with pytest.raises(InputError) as e:
        load_normad(p)
    expect(e, p, line=5, key=NORMAD_KEY, says="11 fields where the header has 10")


def test_fault_normad_ragged_row_missing_field(tmp_path):
    from cultalign.pact.ingest import load_normad

    def short(lines):
        lines[6] = lines[6].rstrip(b"\r\n").rsplit(b",", 1)[0] + b"\r\n"
        return lines
    p = _normad(tmp_path, short)
    with pytest.raises(InputError) as e:
        load_normad(p)
    expect(e, p, line=7, key=NORMAD_KEY, says="9 fields where the header has 10")


def test_fault_normad_missing_column(tmp_path):
    from cultalign.pact.ingest import load_normad

    def rename(lines):
        lines[0] = lines[0].replace(b"Gold Label", b"Label")
        return lines
    p = _normad(tmp_path, rename)
    with pytest.raises(InputError) as e:
        load_normad(p)
    expect(e, p, line=1, field="Gold Label", key=NORMAD_KEY, says="missing column")


def test_fault_normad_bad_value(tmp_path):
    from cultalign.pact.ingest import load_normad

    def label(lines):
        lines[3] = lines[3].rstrip(b"\r\n").rsplit(b",", 1)[0] + b",maybe\r\n"
        return lines
    p = _normad(tmp_path, label)
    with pytest.raises(InputError) as e:
        load_normad(p)
    expect(e, p, line=4, field="Gold Label", key=NORMAD_KEY, says="'maybe' is not one of")


def test_fault_normad_missing_file(tmp_path):
    from cultalign.pact.ingest import load_normad

    p = _keyed(tmp_path / "gone.csv", NORMAD_KEY)
    with pytest.raises(InputError) as e:
        load_normad(p)
    expect(e, p, key=NORMAD_KEY, says="does not exist")


# -- CultureAtlas (pact/ingest.py) ---------------------------------------------------------------
CA_KEY = "pact.sources.cultureatlas.path"


def test_fault_cultureatlas_truncated_json(tmp_path):
    from cultalign.pact.ingest import load_cultureatlas

    text = (DEMO / "pact" / "cultureatlas_demo.json").read_text()
    p = _keyed(tmp_path / "ca.json", CA_KEY)
    p.write_text(text[: len(text) * 2 // 3])
    with pytest.raises(InputError) as e:
        load_cultureatlas(p)
    line = text[: len(text) * 2 // 3].count("\n") + 1  # where the text stops
    msg = expect(e, p, key=CA_KEY, says="invalid JSON")
    assert "truncated" in msg and e.value.row is not None and e.value.row <= line


def test_fault_cultureatlas_ragged_jsonl(tmp_path):
    from cultalign.pact.ingest import load_cultureatlas

    recs = json.loads((DEMO / "pact" / "cultureatlas_demo.json").read_text())
    lines = [json.dumps(r) for r in recs[:4]]
    lines[2] = lines[2][:-5]  # a record cut short on line 3
    p = _keyed(tmp_path / "ca.jsonl", CA_KEY)
    p.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError) as e:
        load_cultureatlas(p)
    expect(e, p, line=3, key=CA_KEY, says="invalid JSON")


def test_fault_cultureatlas_empty_field(tmp_path):
    from cultalign.pact.ingest import load_cultureatlas

    recs = json.loads((DEMO / "pact" / "cultureatlas_demo.json").read_text())
    recs[1]["positive_sample"] = " "
    p = _keyed(tmp_path / "ca.jsonl", CA_KEY)
    p.write_text("".join(json.dumps(r) + "\n" for r in recs))
    with pytest.raises(InputError) as e:
        load_cultureatlas(p)
    expect(e, p, line=2, field="positive_sample", key=CA_KEY, says="empty value")


# -- Prolific export (pact/human.py) -------------------------------------------------------------
PROLIFIC_KEY = "pact.human.prolific_export"


def _export(tmp_path) -> Path:
    from cultalign.pact.human import synthetic_prolific, write_export

    sc = pd.DataFrame({"scenario_id": ["a", "b", "c"], "country": ["India", "Brazil", "Japan"]})
    raw = synthetic_prolific(sc, participant_countries=["India"], participants_per_country=6,
                             scenarios_per_participant=2, attention_answer="orange", seed=3)
    p = tmp_path / "prolific_export.csv"
    write_export(raw, str(p))
    return _keyed(p, PROLIFIC_KEY)


def test_fault_prolific_empty_file(tmp_path):
    from cultalign.pact.human import ingest_export

    p = _export(tmp_path)
    p.write_bytes(b"")
    with pytest.raises(InputError) as e:
        ingest_export(str(p), "orange", "salt", 35)
    expect(e, p, line=1, key=PROLIFIC_KEY, says="empty")


def test_fault_prolific_non_utf8_bytes(tmp_path):
    from cultalign.pact.human import ingest_export

    p = _export(tmp_path)
    lines = _lines(p)
    lines[3] = b"\xff\xfe" + lines[3]
    p.write_bytes(b"".join(lines))
    with pytest.raises(InputError) as e:
        ingest_export(str(p), "orange", "salt", 35)
    expect(e, p, line=4, key=PROLIFIC_KEY, says="byte 0xff at column 1")


def test_fault_prolific_ragged_row(tmp_path):
    from cultalign.pact.human import ingest_export

    p = _export(tmp_path)
    lines = _lines(p)
    lines[2] = lines[2].rstrip(b"\r\n") + b",x,y\n"
    p.write_bytes(b"".join(lines))
    with pytest.raises(InputError) as e:
        ingest_export(str(p), "orange", "salt", 35)
    expect(e, p, line=3, key=PROLIFIC_KEY, says="fields where the header has")


def test_fault_prolific_missing_column(tmp_path):
    from cultalign.pact.human import ingest_export

    p = _export(tmp_path)
    pd.read_csv(p, dtype=str, keep_default_na=False).drop(columns=["s1_norm"]).to_csv(p, index=False)
    with pytest.raises(InputError) as e:
        ingest_export(str(p), "orange", "salt", 35)
    expect(e, p, line=1, field="s1_norm", key=PROLIFIC_KEY, says="missing column")


def test_fault_prolific_bad_answer(tmp_path):
    from cultalign.pact.human import ingest_export

    p = _export(tmp_path)
    from cultalign.pact.human import COMPLETE_STATUSES, PROLIFIC_ID

    df = pd.read_csv(p, dtype=str, keep_default_na=False)
    kept = df.index[(df.consent.str.lower() == "yes") & df.status.isin(COMPLETE_STATUSES) & (df.completed_at != "")
                    & df.participant_id.str.match(PROLIFIC_ID) & (df.attention_check.str.lower() == "orange")
                    & (df.bot_flag == "") & (df.s1_scenario_id != "")]
    i = int(kept[2])  # the third participant that passes every filter
    df.loc[i, "s1_personal"] = "maybe"
    df.to_csv(p, index=False)
    with pytest.raises(InputError) as e:
        ingest_export(str(p), "orange", "salt", 35)
    expect(e, p, line=i + 2, field="s1_personal", key=PROLIFIC_KEY, says="expected A or B, got 'maybe'")


# -- annotation files (pact/annotation.py, monopolet/annotation.py) ------------------------------
def _faulty(tmp_path, demo: str, key: str, i: int, edit) -> Path:
    """The demo file ``demo`` with line index ``i`` replaced by ``edit(line)``, registered under ``key``."""
    lines = _lines(DEMO / demo)
    lines[i] = edit(lines[i])
    p = _keyed(tmp_path / Path(demo).name, key)
    p.write_bytes(b"".join(lines))
    return p


def _last_field(value: bytes):
    return lambda line: line.rstrip(b"\n").rsplit(b"\t", 1)[0] + b"\t" + value + b"\n"


def test_fault_pact_annotations_non_integer_label(tmp_path):
    from cultalign.pact.annotation import agreement_table, read_annotations

    p = _faulty(tmp_path, "pact/annotations_demo.tsv", "pact.annotations", 5, _last_field(b"yes"))
    with pytest.raises(InputError) as e:
        agreement_table(read_annotations(p), str(p))
    expect(e, p, line=6, field="label", key="pact.annotations", says="expected a whole number, got 'yes'")


def test_fault_pact_annotations_missing_column(tmp_path):
    from cultalign.pact.annotation import read_annotations

    p = _faulty(tmp_path, "pact/annotations_demo.tsv", "pact.annotations", 0,
                lambda line: line.replace(b"criterion", b"criteria"))
    with pytest.raises(InputError) as e:
        read_annotations(p)
    expect(e, p, line=1, field="criterion", key="pact.annotations", says="missing column")


def test_fault_monopolet_mapping_bad_value(tmp_path):
    from cultalign.monopolet.annotation import mapping_agreement

    key = "monopolet.annotations.mapping"
    p = _faulty(tmp_path, "monopolet/annotations/mapping_synthetic.tsv", key, 3, _last_field(b"XX"))
    with pytest.raises(InputError) as e:
        mapping_agreement(p)
    expect(e, p, line=4, field="system", key=key, says="expected M, NM or empty, got 'XX'")


def test_fault_monopolet_matching_ragged_row(tmp_path):
    from cultalign.monopolet.annotation import matching_errors

    key = "monopolet.annotations.matching"
    p = _faulty(tmp_path, "monopolet/annotations/matching_synthetic.tsv", key, 2,
                lambda line: line.rstrip(b"\n") + b"\textra\n")
    with pytest.raises(InputError) as e:
        matching_errors(p)
    expect(e, p, line=3, key=key, says="4 fields where the header has 3")


def test_fault_monopolet_matching_bad_value(tmp_path):
    from cultalign.monopolet.annotation import matching_errors

    key = "monopolet.annotations.matching"
    p = _faulty(tmp_path, "monopolet/annotations/matching_synthetic.tsv", key, 4, _last_field(b"2"))
    with pytest.raises(InputError) as e:
        matching_errors(p)
    expect(e, p, line=5, field="issue", key=key, says="expected 0 or 1, got '2'")


def test_fault_personas_oeg_scores_non_numeric(tmp_path):
    from cultalign.personas.metrics import oeg_human_correlation

    key = "personas.annotations.oeg_scores"
    p = _keyed(tmp_path / "oeg_scores.tsv", key)
    p.write_text("instrument\titem_id\tcountry\tmodel\tpriming\thuman_score\n"
                 "cp\t0001\tjapan\tm\tprimed\t4\n"
                 "cp\t0002\tjapan\tm\tprimed\tfour\n")
    with pytest.raises(InputError) as e:
        oeg_human_correlation(pd.DataFrame(), str(p))
    expect(e, p, line=3, field="human_score", key=key, says="expected a number, got 'four'")


def test_fault_personas_validation_missing_column(tmp_path):
    from cultalign.personas.metrics import annotation_agreement

    key = "personas.annotations.validation"
    p = _keyed(tmp_path / "validation.tsv", key)
    p.write_text("country\ttask\tunit\tlabel\njapan\tnorm_relevance\tu1\t1\n")
    with pytest.raises(InputError) as e:
        annotation_agreement(str(p))
    expect(e, p, line=1, field="annotator", key=key, says="missing column")


# -- Monopolet episode manifest (monopolet/episodes.py) ------------------------------------------
def test_fault_manifest_truncated_json(tmp_path):
    from cultalign.monopolet.episodes import load_manifest

    text = (DEMO / "monopolet" / "manifest.json").read_text()
    p = _keyed(tmp_path / "manifest.json", "monopolet.manifest")
    p.write_text(text[: len(text) // 2])
    with pytest.raises(InputError) as e:
        load_manifest(p)
    msg = expect(e, p, key="monopolet.manifest", says="invalid JSON")
    assert e.value.row is not None and "truncated" in msg


# -- instruments (personas/instruments.py) -------------------------------------------------------
def test_fault_instrument_likert_non_utf8_bytes(tmp_path):
    from cultalign.personas.instruments import load_instrument

    key = "personas.instruments.demo-likert.path"
    lines = _lines(DEMO / "personas" / "instruments" / "demo_likert.tsv")
    lines[2] = lines[2].replace(b"\t", b"\t\xe9", 1)
    p = _keyed(tmp_path / "likert.tsv", key)
    p.write_bytes(b"".join(lines))
    with pytest.raises(InputError) as e:
        load_instrument("likert_tsv", p, "demo-likert")
    expect(e, p, line=3, key=key, says="byte 0xe9")


def test_fault_instrument_likert_bad_trait(tmp_path):
    from cultalign.personas.instruments import load_instrument

    key = "personas.instruments.demo-likert.path"
    df = pd.read_csv(DEMO / "personas" / "instruments" / "demo_likert.tsv", sep="\t", dtype=str)
    df.loc[3, "trait"] = "Stubbornness"
    p = _keyed(tmp_path / "likert.tsv", key)
    df.to_csv(p, sep="\t", index=False)
    with pytest.raises(InputError) as e:
        load_instrument("likert_tsv", p, "demo-likert")
    expect(e, p, line=5, field="trait", key=key, says="Stubbornness")


def test_fault_instrument_big5chat_missing_column(tmp_path):
    from cultalign.personas.instruments import load_instrument

    key = "personas.instruments.demo-big5chat.path"
    df = pd.read_csv(DEMO / "personas" / "instruments" / "demo_big5chat.csv")
    p = _keyed(tmp_path / "big5chat.csv", key)
    df.drop(columns=["low_output"]).to_csv(p, index=False)
    with pytest.raises(InputError) as e:
        load_instrument("big5chat", p, "demo-big5chat")
    expect(e, p, line=1, field="low_output", key=key, says="missing column")


def test_fault_instrument_trait_empty_option(tmp_path):
    from cultalign.personas.instruments import load_instrument

    key = "personas.instruments.demo-trait.path"
    df = pd.read_csv(DEMO / "personas" / "instruments" / "demo_trait.csv", dtype=str, keep_default_na=False)
    df.loc[2, "response_low2"] = ""
    p = _keyed(tmp_path / "trait.csv", key)
    df.to_csv(p, index=False)
    with pytest.raises(InputError) as e:
        load_instrument("trait", p, "demo-trait")
    expect(e, p, line=4, field="response_low2", key=key, says="empty value")


def test_fault_instrument_trait_truncated_jsonl(tmp_path):
    from cultalign.personas.instruments import load_instrument

    df = pd.read_csv(DEMO / "personas" / "instruments" / "demo_trait.csv", dtype=str, keep_default_na=False)
    lines = [json.dumps(r) for r in df.head(5).to_dict("records")]
    lines[3] = lines[3][: len(lines[3]) // 2]
    p = tmp_path / "trait.jsonl"
    p.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError) as e:
        load_instrument("trait", p, "trait")
    expect(e, p, line=4, says="invalid JSON")


def test_fault_instrument_ipip_json_truncated(tmp_path):
    from cultalign.personas.instruments import load_instrument

    recs = [{"text": f"item {i}", "keyed": "plus", "domain": "E"} for i in range(20)]
    text = json.dumps(recs, indent=1)
    p = tmp_path / "ipip.json"
    p.write_text(text[:-40])
    with pytest.raises(InputError) as e:
        load_instrument("ipip_json", p, "ipip")
    expect(e, p, says="invalid JSON")


# -- CulturalPersonas release files (personas/release.py, release_eval.py) -------------------------
def _release(tmp_path) -> Path:
    """A two-question release of one country written by the project's release exporter."""
    from cultalign.personas.common import LEVELS
    from cultalign.personas.release import export_release

    d = tmp_path / "gen"
    d.mkdir()
    pd.DataFrame({"norm_id": [0, 1], "norm": ["Greet elders first.", "Remove shoes indoors."],
                  "valid": [True, True]}).to_csv(d / "japan.norms.tsv", sep="\t", index=False)
    pd.DataFrame({"scenario_id": [0, 1], "norm_id": [0, 1], "norm": ["n0", "n1"], "scenario": ["s0", "s1"],
                  "valid": [True, True]}).to_csv(d / "japan.scen.tsv", sep="\t", index=False)
    pd.DataFrame({"scenario_id": [0, 1], "scenario": ["s0", "s1"], "question": ["q0?", "q1?"], "trait": ["E", "A"],
                  **{lv: [f"{lv} a", f"{lv} b"] for lv in LEVELS},
                  "valid": [True, True]}).to_csv(d / "japan.q.tsv", sep="\t", index=False)
    root = tmp_path / "release"
    export_release([d / "japan.norms.tsv"], [d / "japan.scen.tsv"], [d / "japan.q.tsv"],
                   {"japan.norms": "Japan"}, {"japan.norms": "jp"}, root)
    return root


def test_fault_release_truncated_norms_json(tmp_path):
    from cultalign.personas.release import release_norms

    root = _release(tmp_path)
    inputs.register_keys({root: "personas.release.path"})
    p = root / "datasets" / "cp" / "norms" / "openai_cultural_norms.json"
    p.write_text(p.read_text()[:-30])
    with pytest.raises(InputError) as e:
        release_norms(root, "Japan")
    expect(e, p, key="personas.release.path", says="invalid JSON")


def test_fault_release_answers_non_integer_id(tmp_path):
    from cultalign.personas.release import release_questions

    root = _release(tmp_path)
    inputs.register_keys({root: "personas.release.path"})
    p = root / "datasets" / "cp" / "answers" / "all_jp_answers.csv"
    df = pd.read_csv(p, dtype=str, keep_default_na=False)
    df.loc[1, "question_id"] = "one"
    df.to_csv(p, index=False)
    with pytest.raises(InputError) as e:
        release_questions(root, "jp")
    expect(e, p, line=3, field="question_id", key="personas.release.path", says="expected a whole number")


def test_fault_release_questions_ragged_row(tmp_path):
    from cultalign.personas.release import release_questions

    root = _release(tmp_path)
    inputs.register_keys({root: "personas.release.path"})
    p = root / "datasets" / "cp" / "questions" / "all_jp_questions.csv"
    lines = _lines(p)
    lines[1] = lines[1].rstrip(b"\n") + b",stray\n"
    p.write_bytes(b"".join(lines))
    with pytest.raises(InputError) as e:
        release_questions(root, "jp")
    expect(e, p, line=2, key="personas.release.path", says="fields where the header has")


def test_fault_release_audit_ragged_answers_is_a_finding(tmp_path):
    """The release audit collects findings: an unreadable file is an error finding naming file and line."""
    from cultalign.personas.audit import audit_release

    root = _release(tmp_path)
    p = root / "datasets" / "cp" / "answers" / "all_jp_answers.csv"
    lines = _lines(p)
    lines[2] = lines[2].rstrip(b"\n") + b",stray\n"
    p.write_bytes(b"".join(lines))
    f = audit_release(root, {"japan": "Japan"}, {"japan": "jp"}, {"norms": 2}, near=0.8)
    bad = f[(f["file"] == str(p)) & (f["severity"] == "error")]
    assert len(bad) == 1 and bad.iloc[0]["message"].startswith("unreadable: line 3: "), f.to_string()


# -- Johnson files (personas/human.py) -----------------------------------------------------------
def test_fault_johnson_key_bad_trait(tmp_path):
    from cultalign.personas.human import load_key

    key = "personas.human.key120"
    lines = _lines(DEMO / "personas" / "ipip120_synthetic_key.tsv")
    n = next(i for i, line in enumerate(lines) if not line.startswith(b"#") and b"keyed" not in line) + 4
    parts = lines[n].split(b"\t")
    parts[1] = b"Q"
    lines[n] = b"\t".join(parts)
    p = _keyed(tmp_path / "key.tsv", key)
    p.write_bytes(b"".join(lines))
    with pytest.raises(InputError) as e:
        load_key(p)
    expect(e, p, line=n + 1, field="trait", key=key)


def test_fault_johnson_key_truncated_json(tmp_path):
    from cultalign.personas.human import load_key

    p = _keyed(tmp_path / "items.json", "personas.human.key120")
    p.write_text(json.dumps([{"domain": "N", "keyed": "plus"}] * 10, indent=1)[:-25])
    with pytest.raises(InputError) as e:
        load_key(p)
    expect(e, p, key="personas.human.key120", says="invalid JSON")


def test_fault_johnson_data_empty_file(tmp_path):
    from cultalign.personas.human import JohnsonLayout, read_johnson

    p = _keyed(tmp_path / "IPIP120.dat", "personas.human.files.ipip120")
    p.write_bytes(b"")
    with pytest.raises(InputError) as e:
        read_johnson(p, JohnsonLayout.for_form("ipip120"), {"usa": "USA"})
    expect(e, p, key="personas.human.files.ipip120", says="empty")


# -- corpus PDFs (retrieval/corpus.py) -------------------------------------------------------------
def _demo_pdf(tmp_path) -> Path:
    """A real PDF from the project's demo PDF writer (the demo corpus of a country)."""
    from cultalign.personas.corpus import demo_pdf

    src = next((ROOT / "resources" / "demo" / "personas" / "corpus").glob("*.txt"))
    folder = tmp_path / "corpus_jp"
    folder.mkdir()
    pdf = folder / "b_demo.pdf"
    demo_pdf(src, pdf, "japan")
    return pdf


def test_fault_pdf_truncated(tmp_path):
    from cultalign.retrieval.corpus import load_pdf_files

    good = _demo_pdf(tmp_path)
    shutil.copy(good, good.parent / "a_demo.pdf")
    data = good.read_bytes()
    good.write_bytes(data[: len(data) // 2])  # b_demo.pdf cut in half, a_demo.pdf intact
    inputs.register_keys({good.parent: "personas.corpus.folders.japan"})
    with pytest.raises(InputError) as e:
        load_pdf_files(sorted(good.parent.glob("*.pdf")))
    expect(e, good, key="personas.corpus.folders.japan", says="cannot read this PDF")


def test_fault_pdf_not_a_pdf(tmp_path):
    from cultalign.retrieval.corpus import load_pdf_files

    p = tmp_path / "notes.pdf"
    p.write_text("these are notes saved with the wrong extension\n")
    with pytest.raises(InputError) as e:
        load_pdf_files([p])
    expect(e, p, says="cannot read this PDF")


# -- audio (audio/transcribe.py, audio/diarize.py) -------------------------------------------------
def _wav(tmp_path) -> Path:
    import soundfile as sf

    p = tmp_path / "ep01.wav"
    t = np.arange(16000) / 16000
    sf.write(p, (0.2 * np.sin(2 * np.pi * 220 * t)).astype("float32"), 16000)
    return p


def test_fault_audio_truncated_header(tmp_path):
    from cultalign.audio.transcribe import probe_audio

    p = _wav(tmp_path)
    p.write_bytes(p.read_bytes()[:30])
    inputs.register_keys({tmp_path: "monopolet.audio_dir"})
    with pytest.raises(InputError) as e:
        probe_audio(p)
    expect(e, p, key="monopolet.audio_dir", says="audio")


def test_fault_audio_empty_file(tmp_path):
    from cultalign.audio.diarize import load_wav16k

    p = _wav(tmp_path)
    p.write_bytes(b"")
    with pytest.raises(InputError) as e:
        load_wav16k(p)
    expect(e, p, says="empty")


def test_audio_good_file_decodes(tmp_path):
    """The same reader on the intact file (the faults above are not the reader failing on anything)."""
    from cultalign.audio.diarize import load_wav16k
    from cultalign.audio.transcribe import probe_audio

    p = _wav(tmp_path)
    assert probe_audio(p) == pytest.approx(1.0, abs=0.01)
    assert load_wav16k(p).shape == (16000,)


def test_intact_demo_inputs_still_load(tmp_path):
    """Every loader above reads the unmodified demo file it was given a fault in."""
    from cultalign.monopolet.annotation import mapping_agreement, matching_errors
    from cultalign.pact.annotation import read_annotations
    from cultalign.pact.ingest import load_cultureatlas, load_normad
    from cultalign.personas.human import load_key
    from cultalign.personas.instruments import load_instrument
    from cultalign.personas.release import release_norms, release_questions

    assert len(load_normad(DEMO / "pact" / "normad_demo.csv")) > 5
    assert len(load_cultureatlas(DEMO / "pact" / "cultureatlas_demo.json")) > 3
    assert len(read_annotations(DEMO / "pact" / "annotations_demo.tsv")) > 3
    assert len(mapping_agreement(DEMO / "monopolet" / "annotations" / "mapping_synthetic.tsv"))
    assert len(matching_errors(DEMO / "monopolet" / "annotations" / "matching_synthetic.tsv"))
    assert len(load_key(DEMO / "personas" / "ipip120_synthetic_key.tsv")) == 120
    for kind, f in (("likert_tsv", "demo_likert.tsv"), ("big5chat", "demo_big5chat.csv"), ("trait", "demo_trait.csv")):
        assert len(load_instrument(kind, DEMO / "personas" / "instruments" / f, kind)) > 3
    root = _release(tmp_path)
    assert release_norms(root, "Japan") == ["Greet elders first.", "Remove shoes indoors."]
    assert len(release_questions(root, "jp")) == 2


# -- a user's own files, pointed at through the config: key map -> rule param input_keys -> loader ----
def _as_a_job_with(tmp_path, overlay: dict, files) -> None:
    """Register the config keys a rule job gets for ``files`` (param ``input_keys``) when the user
    layers ``overlay`` on the embedded default: the key map is built as rules/common.smk builds it."""
    import yaml

    from cultalign.config import load_config, load_schema

    user = tmp_path / "user.yaml"
    user.write_text(yaml.safe_dump(overlay))
    key_map = inputs.input_key_map(load_schema(ROOT / "config" / "schema"),
                                   load_config(ROOT / "config" / "config.yaml", user))
    inputs.register_keys(inputs.keys_of_files(files, key_map))  # what Job does with the param


def expect_one_line(exc: pytest.ExceptionInfo, path: Path, key: str, says: str) -> None:
    """One line: the file, what is wrong and the config key (no library traceback in the message)."""
    msg = expect(exc, path, key=key, says=says)
    assert "\n" not in msg, msg


def test_user_corpus_folder_truncated_pdf_names_the_folder_key(tmp_path):
    """personas.corpus.folders.<country>: the key of the folder reaches the PDF reader (it did not:
    the schema did not mark the folders as inputs, so the job had no key to give)."""
    from cultalign.retrieval.corpus import load_pdf_files

    good = _demo_pdf(tmp_path)
    shutil.copy(good, good.parent / "a_demo.pdf")
    good.write_bytes(good.read_bytes()[:1500])
    pdfs = sorted(good.parent.glob("*.pdf"))
    _as_a_job_with(tmp_path, {"personas": {"corpus": {"folders": {"japan": str(good.parent)}}}}, pdfs)
    with pytest.raises(InputError) as e:
        load_pdf_files(pdfs)
    expect_one_line(e, good, "personas.corpus.folders.japan", "cannot read this PDF")


def test_user_audio_dir_damaged_recording_names_the_key(tmp_path):
    from cultalign.audio.transcribe import probe_audio

    rec = tmp_path / "recordings"
    rec.mkdir()
    wav = rec / "ep01.wav"
    wav.write_bytes(_wav(tmp_path).read_bytes()[:40])
    _as_a_job_with(tmp_path, {"monopolet": {"audio_dir": str(rec)}}, [wav])
    with pytest.raises(InputError) as e:
        probe_audio(wav)
    expect_one_line(e, wav, "monopolet.audio_dir", "cannot decode this audio file")


def test_user_episode_manifest_truncated_names_the_key(tmp_path):
    from cultalign.monopolet.manifest import load_manifest

    text = (DEMO / "monopolet" / "manifest.json").read_text()
    p = tmp_path / "episodes.json"
    p.write_text(text[: len(text) // 2])
    _as_a_job_with(tmp_path, {"monopolet": {"manifest": str(p)}}, [p])
    with pytest.raises(InputError) as e:
        load_manifest(p)
    expect_one_line(e, p, "monopolet.manifest", "invalid JSON")


def test_user_prolific_export_ragged_row_names_the_key(tmp_path):
    from cultalign.pact.human import ingest_export

    p = _export(tmp_path)
    inputs._KEYS.clear()  # the helper's own registration: the key must come from the config alone
    lines = _lines(p)
    lines[2] = lines[2].rstrip(b"\r\n") + b",x\n"
    p.write_bytes(b"".join(lines))
    _as_a_job_with(tmp_path, {"pact": {"human": {"prolific_export": str(p)}}}, [p])
    with pytest.raises(InputError) as e:
        ingest_export(str(p), "orange", "salt", 35)
    expect_one_line(e, p, PROLIFIC_KEY, "fields where the header has")


def test_user_instrument_file_bad_trait_names_the_key(tmp_path):
    from cultalign.personas.instruments import load_instrument

    df = pd.read_csv(DEMO / "personas" / "instruments" / "demo_likert.tsv", sep="\t", dtype=str)
    df.loc[3, "trait"] = "Stubbornness"
    p = tmp_path / "my_likert.tsv"
    df.to_csv(p, sep="\t", index=False)
    _as_a_job_with(tmp_path, {"personas": {"instruments": {"demo-likert": {"path": str(p)}}}}, [p])
    with pytest.raises(InputError) as e:
        load_instrument("likert_tsv", p, "demo-likert")
    expect_one_line(e, p, "personas.instruments.demo-likert.path", "Stubbornness")


def test_user_release_folder_truncated_file_names_the_key(tmp_path):
    """personas.release.path is a folder: a file inside it is named with the folder's key."""
    from cultalign.personas.release import release_norms

    root = _release(tmp_path)
    p = root / "datasets" / "cp" / "norms" / "openai_cultural_norms.json"
    p.write_text(p.read_text()[:-30])
    _as_a_job_with(tmp_path, {"personas": {"release": {"path": str(root)}}}, [root])
    with pytest.raises(InputError) as e:
        release_norms(root, "Japan")
    expect_one_line(e, p, "personas.release.path", "invalid JSON")


def test_manifest_read_while_the_workflow_is_parsed_names_its_key(tmp_path):
    """The episode manifest is read while the Snakefile is parsed (its episodes are wildcard values),
    outside any job: a truncated one fails the dry run naming file, line and config key."""
    import subprocess
    import sys

    text = (DEMO / "monopolet" / "manifest.json").read_text()
    p = tmp_path / "episodes.json"
    p.write_text(text[: len(text) // 2])
    (tmp_path / "user.yaml").write_text(f"monopolet:\n  manifest: {p}\n")
    out = subprocess.run([sys.executable, "-m", "snakemake", "-n", "--cores", "1", "--configfile",
                          str(tmp_path / "user.yaml")], cwd=ROOT, capture_output=True, text=True, timeout=300)
    terminal = out.stdout + out.stderr
    assert out.returncode != 0
    assert f"{p}, line " in terminal and "invalid JSON" in terminal, terminal[-3000:]
    assert "(file set by config key 'monopolet.manifest')" in terminal, terminal[-3000:]


# -- the whole path in a real run: rule param input_keys -> Job -> loader -> terminal ---------------
def _workflow_fault(tmp_path, files: dict[str, bytes], config: str, target: str):
    """Run ``target`` in a copy of the checkout with ``files`` written and ``config`` layered on the
    small test config; (terminal output, the copy)."""
    import subprocess
    import sys

    from conftest import copy_worktree

    work = copy_worktree(tmp_path / "work", link_models=False)
    for rel, data in files.items():
        (work / rel).parent.mkdir(parents=True, exist_ok=True)
        (work / rel).write_bytes(data)
    (work / "fault.yaml").write_text(config)
    out = subprocess.run([sys.executable, "-m", "snakemake", target, "--cores", "1",
                          "--configfile", "tests/config/small.yaml", "fault.yaml"],
                         cwd=work, capture_output=True, text=True, timeout=600)
    assert out.returncode != 0
    return out.stdout + out.stderr, work


@pytest.mark.slow
def test_fault_normad_in_a_workflow_run_names_file_line_and_key_on_the_terminal(tmp_path):
    """A ragged NormAd file given through the config: the failed job's terminal output names the
    file, the line and the config key (from the rule's input_keys param), as the log's last line."""
    lines = _lines(DEMO / "pact" / "normad_demo.csv")
    lines[4] = lines[4].rstrip(b"\r\n") + b",stray\r\n"
    terminal, work = _workflow_fault(tmp_path, {"bad/normad.csv": b"".join(lines)},
                                     "pact:\n  sources:\n    normad:\n      path: bad/normad.csv\n",
                                     "results/pact/ingest/normad.tsv")
    cause = ("ERROR InputError: bad/normad.csv, line 5: 11 fields where the header has 10 (a stray separator "
             "or an unclosed quote?) (file set by config key 'pact.sources.normad.path')")
    assert cause in terminal, terminal[-3000:]
    assert (work / "logs" / "pact" / "ingest_normad.log").read_text().splitlines()[-1] == cause
    assert not (work / "results" / "pact" / "ingest" / "normad.tsv").exists()


@pytest.mark.slow
def test_fault_audio_in_a_workflow_run_names_file_and_key_on_the_terminal(tmp_path):
    """A damaged recording in the configured audio folder (real recordings: no demo scripts)."""
    wav = _wav(tmp_path).read_bytes()[:40]
    terminal, _ = _workflow_fault(tmp_path, {"recordings/demo_ep01.wav": wav},
                                  "monopolet:\n  audio_dir: recordings\n  demo_scripts: null\n",
                                  "results/monopolet/diarization/demo_ep01.turns.tsv")
    assert ("ERROR InputError: recordings/demo_ep01.wav: cannot decode this audio file" in terminal
            and "(file set by config key 'monopolet.audio_dir')" in terminal), terminal[-3000:]
    assert "Traceback" not in terminal, terminal[-3000:]  # it is in the file beside the rule log


@pytest.mark.slow
def test_fault_pdf_in_a_workflow_run_names_file_and_key_on_the_terminal(tmp_path):
    """A truncated PDF in the user's corpus folder of a country: one line on the terminal naming the
    PDF and the folder's config key, no traceback through langchain and pypdf (kept beside the log)."""
    good = _demo_pdf(tmp_path)
    data = good.read_bytes()
    terminal, work = _workflow_fault(tmp_path, {"mycorpus/japan/a.pdf": data, "mycorpus/japan/b.pdf": data[:1500]},
                                     "personas:\n  corpus:\n    folders:\n      japan: mycorpus/japan\n",
                                     "results/personas/index/japan.chunks.tsv")
    cause = ("ERROR InputError: mycorpus/japan/b.pdf: cannot read this PDF (PdfStreamError: Stream has ended "
             "unexpectedly); the file may be truncated or not a PDF - replace or remove it (file set by config key "
             "'personas.corpus.folders.japan')")
    assert cause in terminal and "Traceback" not in terminal, terminal[-3000:]
    assert "pypdf" in (work / "logs" / "personas" / "index" / "japan.log.traceback").read_text()


def test_input_error_survives_pickling():
    """An InputError raised in a worker process reaches the parent with its fields."""
    import pickle

    from cultalign.personas.instruments import InstrumentError

    for cls in (InputError, InstrumentError):
        e = pickle.loads(pickle.dumps(cls("a.csv", "bad value", row=3, field="x", key="k.path")))
        assert type(e) is cls and (e.path, e.row, e.field, e.key) == ("a.csv", 3, "x", "k.path")
        assert str(e) == "a.csv, line 3, field 'x': bad value (file set by config key 'k.path')"
