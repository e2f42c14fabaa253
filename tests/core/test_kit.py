"""The shared study kit (cultalign.core): code hashes, prompts, seeds, tables with
provenance, canonical params, and the rules every study shares."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest

from cultalign.core import codehash
from cultalign.core.prompts import PromptSet
from cultalign.core.provenance import canonical, params_hash, read_sidecar, sidecar_path
from cultalign.core.seeds import derive_seed
from cultalign.core.tables import read_tsv, write_table

ROOT = Path(__file__).resolve().parents[2]


# -- package code as a rerun trigger ----------------------------------------------------------


@pytest.fixture
def fake_package(tmp_path, monkeypatch):
    """A throwaway package `cultalign` under tmp_path/src, so code hashes can be computed on files
    the test edits (the real package is never touched)."""
    src = tmp_path / "src"
    pkg = src / "cultalign"
    (pkg / "study" / "prompts").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "study" / "__init__.py").write_text("")
    (pkg / "study" / "a.py").write_text("from . import b\nPROMPTS = 'prompts'\n")
    (pkg / "study" / "b.py").write_text("def f():\n    from cultalign.study import c  # lazy import\n")
    (pkg / "study" / "c.py").write_text("X = 1\n")
    (pkg / "study" / "d.py").write_text("Y = 2\n")
    (pkg / "study" / "prompts" / "ask.txt").write_text("Ask $x\n")
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    (scripts / "uses_a.py").write_text("from cultalign.study.a import PROMPTS\n")
    (scripts / "uses_d.py").write_text("import cultalign.study.d\n")
    monkeypatch.setattr(codehash, "SRC", src)
    codehash._parse.cache_clear()
    yield tmp_path
    codehash._parse.cache_clear()


def test_code_files_follow_imports_lazy_ones_and_named_data_folders(fake_package):
    files = codehash.code_files(fake_package / "scripts" / "uses_a.py")
    rel = {str(p.relative_to(fake_package / "src")) for p in files}
    assert rel == {"cultalign/__init__.py", "cultalign/study/__init__.py", "cultalign/study/a.py",
                   "cultalign/study/b.py", "cultalign/study/c.py", "cultalign/study/prompts/ask.txt"}


def test_dots_in_a_string_name_no_data_folder(fake_package):
    """A module whose strings hold "." or ".." (a regex, a text's dots) does not take the folder above
    it, and so the whole source tree, into the code hash of every script that reaches it."""
    (fake_package / "src" / "cultalign" / "top.py").write_text("SEP = '..'\nDOT = '.'\nUP = '...'\n")
    script = fake_package / "scripts" / "uses_top.py"
    script.write_text("import cultalign.top\n")
    rel = {str(p.relative_to(fake_package / "src")) for p in codehash.code_files(script)}
    assert rel == {"cultalign/__init__.py", "cultalign/top.py"}


def test_every_script_hashes_package_files_only():
    for s in sorted((ROOT / "scripts").rglob("*.py")):
        for f in codehash.code_files(s):
            assert f.resolve().is_relative_to(codehash.SRC.resolve() / "cultalign"), (s, f)
            assert ".." not in f.parts, (s, f)


def test_editing_a_module_changes_the_hash_of_the_scripts_that_reach_it_only(fake_package):
    a, d = fake_package / "scripts" / "uses_a.py", fake_package / "scripts" / "uses_d.py"
    before = codehash.code_hash(a), codehash.code_hash(d)
    (fake_package / "src" / "cultalign" / "study" / "c.py").write_text("X = 2\n")
    codehash._parse.cache_clear()
    after = codehash.code_hash(a), codehash.code_hash(d)
    assert after[0] != before[0] and after[1] == before[1]
    (fake_package / "src" / "cultalign" / "study" / "prompts" / "ask.txt").write_text("Ask again $x\n")
    codehash._parse.cache_clear()
    assert codehash.code_hash(a) != after[0]


def test_every_rule_script_reaches_the_package_through_its_imports():
    """The real scripts: each imports the kit, and its code hash covers the modules it names."""
    scripts = sorted((ROOT / "scripts").rglob("*.py"))
    assert scripts
    for s in scripts:
        files = {str(p.relative_to(codehash.SRC)) for p in codehash.code_files(s)}
        named = re.findall(r"^from (cultalign[\w.]*) import", s.read_text(), re.M)
        for mod in named:
            f = codehash._module_file(mod)
            assert f and str(f.relative_to(codehash.SRC)) in files, (s, mod)


# -- params -----------------------------------------------------------------------------------


def test_canonical_params_do_not_depend_on_key_order():
    a = {"b": 1, "a": {"y": [2, {"q": 1, "p": 2}], "x": None}}
    b = {"a": {"x": None, "y": [2, {"p": 2, "q": 1}]}, "b": 1}
    assert repr(canonical(a)) == repr(canonical(b))
    assert params_hash(a) == params_hash(b)
    assert canonical({"l": [3, 1, 2]}) == {"l": [3, 1, 2]}  # lists keep their order


# -- prompts, seeds ---------------------------------------------------------------------------


def test_prompt_set_one_placeholder_syntax_and_strict_rendering(tmp_path):
    (tmp_path / "q.txt").write_text('\nReply as JSON {"answer": "..."} about $topic; costs $$5.\n')
    ps = PromptSet(tmp_path)
    assert ps.render("q", topic="tea") == 'Reply as JSON {"answer": "..."} about tea; costs $5.'
    with pytest.raises(KeyError, match=r"\$topic"):
        ps.render("q")
    with pytest.raises(FileNotFoundError, match="missing.txt"):
        ps.text("missing")
    h = ps.hashes("q")["q"]
    assert re.fullmatch(r"[0-9a-f]{16}", h)
    (tmp_path / "r.txt").write_text("other")
    assert PromptSet(tmp_path).hashes("r")["r"] != h


def test_derived_seeds_are_stable_31_bit_and_part_sensitive():
    s = derive_seed(20261129, "pact", "order", 17)
    assert s == derive_seed(20261129, "pact", "order", 17)
    assert 0 <= s < 2**31
    assert s != derive_seed(20261129, "pact", "order", 18)
    assert derive_seed("a|b") == derive_seed("a", "b")  # documented join: parts are joined with '|'
    assert derive_seed(1, "x") == 844972678  # pinned: a change here changes every seeded result
    with pytest.raises(ValueError):
        derive_seed()


# -- tables with provenance -------------------------------------------------------------------


def test_write_table_writes_its_sidecar_and_never_leaves_a_stale_one(tmp_path):
    out = tmp_path / "t" / "table.tsv"
    job = {"rule": "r", "wildcards": {"x": "1"}, "params": {"b": 2, "a": 1}, "code": "abc"}
    write_table(pd.DataFrame({"answer": ["None", "NA", ""]}), out, job=job, seed=3, counts={"rows": 3})
    side = read_sidecar(out)
    assert side["rule"] == "r" and side["params"] == {"b": 2, "a": 1} and side["code"] == "abc"
    assert side["params_hash"] == params_hash({"a": 1, "b": 2}) and side["seed"] == 3
    assert "packages" in side and side["counts"] == {"rows": 3}
    df = read_tsv(out)
    assert df["answer"].tolist() == ["None", "NA", ""]  # text stays text
    assert pd.isna(read_tsv(out, empty_as_na=True)["answer"][2])
    with pytest.raises(ValueError, match=r"table.tsv, line 1, field 'score': missing column\(s\) \['score'\]"):
        read_tsv(out, required=["score"])
    # a failing rewrite leaves no sidecar of the earlier table behind
    with pytest.raises(Exception):
        write_table(object(), out, job=job)  # not a DataFrame
    assert not sidecar_path(out).exists()
    assert not list(out.parent.glob(".*.tmp"))


def test_no_rule_script_reads_the_config_directly():
    """Every config value reaches a script as a param (rules/common.smk: conf, llm_of)."""
    offenders = [str(p.relative_to(ROOT)) for p in list((ROOT / "scripts").rglob("*.py"))
                 + list((ROOT / "src").rglob("*.py")) if "snakemake.config" in p.read_text()]
    assert not offenders, offenders


def test_sidecar_is_json_with_sorted_keys(tmp_path):
    out = tmp_path / "x.tsv"
    write_table(pd.DataFrame({"a": [1]}), out, job={"rule": "r", "params": {}, "wildcards": {}, "code": None})
    text = sidecar_path(out).read_text()
    assert list(json.loads(text)) == sorted(json.loads(text))


def test_job_removes_stale_sidecars_at_start_and_records_its_params(tmp_path, restore_streams):
    from conftest import FakeSnakemake

    from cultalign.core.job import Job

    out = tmp_path / "t.tsv"
    write_table(pd.DataFrame({"a": [1]}), out, job={"rule": "earlier"})
    assert sidecar_path(out).exists()
    job = Job(FakeSnakemake(tmp_path, [out], params={"seed": 7, "code": "c0de", "bootstrap": 50}))
    assert not sidecar_path(out).exists()  # the earlier run's sidecar is gone before the job works
    rec = job.record()
    assert rec == {"rule": "fake_rule", "wildcards": {"model": "m"}, "params": {"bootstrap": 50, "seed": 7},
                   "code": "c0de", "synthetic_inputs": []}
    assert job.seed == 7 and job.writer == "fake_rule_model-m"
    job.write_table(pd.DataFrame({"a": [1]}), out)
    assert read_sidecar(out)["params"] == {"bootstrap": 50, "seed": 7}


def test_tables_get_the_usual_file_permissions(tmp_path):
    import os
    import stat

    out = write_table(pd.DataFrame({"a": [1]}), tmp_path / "p.tsv", job={})
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(out.stat().st_mode) == 0o666 & ~mask
