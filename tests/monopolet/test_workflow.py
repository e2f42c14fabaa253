"""Workflow level: the monopolet targets resolve in dry runs (embedded and
paper configs), and bad inputs fail through Snakemake before any job runs,
naming the file, the row and the field."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SNAKEMAKE = Path(sys.executable).with_name("snakemake")
TARGETS = ["monopolet_figure3", "monopolet_figure5", "monopolet_figure6", "monopolet_figure7", "monopolet_figure8",
           "monopolet_figure9", "monopolet_table1", "monopolet_validation", "monopolet_annotation_samples_export",
           "results/monopolet/tables/audio_quality.tsv"]
DEMO_MANIFEST = ROOT / "resources" / "demo" / "monopolet" / "manifest.json"

pytestmark = pytest.mark.slow


def _snakemake(*args, cwd=ROOT, timeout=300):
    cmd = [str(SNAKEMAKE), *args, "-n", "--cores", "1", "--quiet", "rules"]
    out = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    return out.returncode, out.stdout + out.stderr


@pytest.fixture(scope="module")
def worktree(tmp_path_factory):
    """A copy of the checkout without results: Snakemake would take an existing
    output as given even when the rule making it lacks an input."""
    from conftest import copy_worktree

    return copy_worktree(tmp_path_factory.mktemp("wt"))


def test_monopolet_dry_run_embedded_builds_every_stage():
    rc, text = _snakemake(*TARGETS, "--forceall")
    assert rc == 0, text[-3000:]
    for rule in ("monopolet_demo_audio", "monopolet_whisper_join", "monopolet_episodes", "monopolet_transcribe",
                 "monopolet_diarize", "monopolet_speaker_transcript", "monopolet_sections", "monopolet_dilemmas",
                 "monopolet_answers", "monopolet_solutions", "monopolet_match", "monopolet_agreement",
                 "monopolet_topics", "monopolet_response_stats", "monopolet_dataset_stats",
                 "monopolet_annotation_agreement", "monopolet_plot_figure8", "monopolet_eaa_grid",
                 "monopolet_topic_map", "monopolet_annotation_samples"):
        assert rule in text, rule
    assert "monopolet_whisper_convert" not in text  # paper-scale only


def test_monopolet_dry_run_paper_config():
    rc, text = _snakemake(*TARGETS[:-1], "--forceall", "--configfile", "config/paper.yaml")
    assert rc == 0, text[-3000:]
    assert "monopolet_whisper_convert" in text and "monopolet_whisper_join" not in text
    assert "monopolet_match" in text


def _override(tmp_path, **monopolet) -> str:
    import yaml

    p = tmp_path / "override.yaml"
    p.write_text(yaml.safe_dump({"studies": ["monopolet"], "monopolet": monopolet}))
    return str(p)


def test_bad_manifest_fails_naming_file_row_and_field(tmp_path, worktree):
    data = json.loads(DEMO_MANIFEST.read_text(encoding="utf-8"))
    data["episodes"][2]["release_date"] = "17/01/2026"
    bad = tmp_path / "bad_manifest.json"
    bad.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    rc, text = _snakemake(*TARGETS, "--configfile", _override(tmp_path, manifest=str(bad)), cwd=worktree)
    assert rc != 0
    assert str(bad) in text and "row 2" in text and "demo_ep02" in text and "'release_date'" in text


def test_missing_episode_audio_fails_naming_the_file(tmp_path, worktree):
    """Without demo scripts nothing can make the audio: the missing file is named."""
    audio = tmp_path / "audio"
    audio.mkdir()
    rc, text = _snakemake(*TARGETS, "--configfile", _override(tmp_path, audio_dir=str(audio), demo_scripts=None),
                          cwd=worktree)
    assert rc != 0
    assert "Missing input files for rule monopolet_" in text and "None/" not in text
    assert str(audio / "demo_ep01.wav") in text
