"""Paper scale evaluates the published CulturalPersonas release, downloaded file by file at a pinned
commit with checksums (config/paper.yaml `downloads`), without the corpus PDFs a newcomer lacks."""

import hashlib
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from cultalign.config import ConfigError, check_input_files, load_config
from cultalign.personas.release import release_files, release_root

ROOT = Path(__file__).resolve().parents[2]
SNAKEMAKE = Path(sys.executable).with_name("snakemake")
CODES = ["USA", "brazil", "india", "japan", "saudiarabia", "southafrica"]
PREFIX = "culturalpersonas/"


def _paper() -> dict:
    return yaml.safe_load((ROOT / "config" / "paper.yaml").read_text())


def test_paper_scale_evaluates_the_release_it_downloads():
    paper = _paper()
    p = paper["personas"]
    assert (p["cp_source"], p["priming_norms"]) == ("release", "release")
    assert p["release"]["path"] == "resources/downloads/" + PREFIX.rstrip("/")
    downloads = paper["downloads"]
    need = release_files(CODES, norms=True, baselines=["datasets/baselines/bfi.csv"])
    commits = set()
    for f in need:
        entry = downloads[PREFIX + f]  # every file the evaluation and the audit read is downloaded
        m = re.fullmatch(r"https://raw\.githubusercontent\.com/limenlp/CulturalPersonas/([0-9a-f]{40})/(.+)",
                         entry["url"])
        assert m and m.group(2) == f, entry["url"]
        assert re.fullmatch(r"[0-9a-f]{64}", entry["sha256"] or ""), f"{f}: no sha256 pinned"
        commits.add(m.group(1))
    assert len(commits) == 1  # one commit for the whole release, the baselines' too


def test_pinned_checksums_are_those_of_the_real_release(shared_data):
    release = shared_data / "culturalpersonas"
    if not release.is_dir():
        pytest.skip(f"the real CulturalPersonas release is not at {release}")
    downloads = _paper()["downloads"]
    for key, entry in downloads.items():
        if key.startswith(PREFIX) and (release / key[len(PREFIX):]).is_file():
            assert hashlib.sha256((release / key[len(PREFIX):]).read_bytes()).hexdigest() == entry["sha256"], key


def test_the_release_folder_the_downloads_fill_passes_the_input_check():
    cfg = load_config(ROOT / "config" / "config.yaml", ROOT / "config" / "paper.yaml")
    if (ROOT / cfg["personas"]["release"]["path"]).exists():
        pytest.skip("this checkout has downloaded the release already")
    check_input_files(cfg, base=ROOT)  # the release folder is filled by rule download_file
    cfg["downloads"] = {k: v for k, v in cfg["downloads"].items() if not k.startswith(PREFIX)}
    with pytest.raises(ConfigError, match="personas.release.path"):
        check_input_files(cfg, base=ROOT)


def test_the_inputs_listing_names_the_release_folder_as_downloaded():
    from cultalign.config import load_schema
    from cultalign.inputs import external_inputs

    cfg = load_config(ROOT / "config" / "config.yaml", ROOT / "config" / "paper.yaml")
    rel = {i.key: i for i in external_inputs(cfg, load_schema(), ROOT)}["personas.release.path"]
    n = sum(k.startswith(PREFIX) for k in cfg["downloads"])  # the release's files and its baselines
    assert (rel.kind, rel.made_by) == ("folder", "download_file") and f"{n} downloads entries" in rel.note


def test_release_root_of_a_folder_or_of_its_files(tmp_path):
    assert release_root("some/release") == Path("some/release")
    files = [f"resources/downloads/culturalpersonas/{f}" for f in release_files(["japan"], norms=True)]
    assert release_root(files) == Path("resources/downloads/culturalpersonas")
    with pytest.raises(ValueError, match="one folder"):
        release_root([*files, "elsewhere/datasets/cp/x.csv"])


def test_downloaded_release_files_evaluate_like_the_release_folder(shared_data, tmp_path):
    # the files a download writes, one by one, under resources/downloads/culturalpersonas/
    from cultalign.personas.instruments import cp_instrument
    from cultalign.personas.release import scenario_norms

    release = shared_data / "culturalpersonas"
    if not release.is_dir():
        pytest.skip(f"the real CulturalPersonas release is not at {release}")
    root = tmp_path / "resources" / "downloads" / "culturalpersonas"
    files = []
    for f in release_files(["japan"]):
        (root / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(release / f, root / f)
        files.append(str(root / f))
    items, _ = cp_instrument(None, release=release_root(files), release_code="japan")
    assert len(items) == 500
    assert scenario_norms(release_root(files), "japan") == scenario_norms(release, "japan")


@pytest.mark.slow
def test_paper_personas_dag_plans_without_the_corpus_pdfs(tmp_path):
    # a newcomer's checkout: no corpus folders, nothing downloaded; the dry run plans the downloads and
    # the evaluation of the release, and no generation rule (those need the user's PDFs)
    cmd = [str(SNAKEMAKE), "personas_table2", "personas_table3", "personas_audit", "-n", "--forceall",
           "--cores", "1", "--quiet", "rules", "--configfile", "config/paper.yaml"]
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    text = out.stdout + out.stderr
    for rule in ("download_file", "personas_cp_items", "personas_mcs", "personas_oeg", "personas_audit_release"):
        assert rule in text
    for rule in ("personas_index", "personas_norms", "personas_questions", "personas_audit_generated"):
        assert rule not in text
