"""Demo podcast audio: speak a SYNTHETIC episode script with espeak-ng.

Script format (UTF-8 text)::

    # voice VAERT = da 40        (speaker = espeak-ng voice, optional pitch 0-99)
    VAERT: Godmorgen og velkommen ...

Each line is spoken in its speaker's voice, resampled to 16 kHz mono with sox
and joined with a short pause.  The reference speaker turns (who spoke when)
are written beside the audio so diarization can be checked against them.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

VOICE_RE = re.compile(r"^#\s*voice\s+(?P<spk>[A-ZÆØÅa-zæøå0-9_]+)\s*=\s*(?P<voice>\S+)(?:\s+(?P<pitch>\d+))?\s*$")
LINE_RE = re.compile(r"^(?P<spk>[A-ZÆØÅa-zæøå0-9_]+):\s*(?P<text>.+)$")
SAMPLE_RATE = 16000


class ScriptError(ValueError):
    pass


@dataclass(frozen=True)
class Line:
    speaker: str
    text: str
    lineno: int


def parse_script(path: str | Path) -> tuple[dict[str, tuple[str, int | None]], list[Line]]:
    """Voices {speaker: (voice, pitch)} and the spoken lines; errors name file and line."""
    path = Path(path)
    voices: dict[str, tuple[str, int | None]] = {}
    lines: list[Line] = []
    for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        s = raw.strip()
        if not s:
            continue
        if s.startswith("#"):
            m = VOICE_RE.match(s)
            if m:
                voices[m["spk"]] = (m["voice"], int(m["pitch"]) if m["pitch"] else None)
            continue
        m = LINE_RE.match(s)
        if not m:
            raise ScriptError(f"{path}, line {n}: expected 'SPEAKER: text', got {s[:60]!r}")
        if m["spk"] not in voices:
            raise ScriptError(f"{path}, line {n}: speaker {m['spk']!r} has no '# voice' declaration")
        lines.append(Line(m["spk"], m["text"].strip(), n))
    if not lines:
        raise ScriptError(f"{path}: no spoken lines")
    if len({v for v in voices.values()}) < 2:
        raise ScriptError(f"{path}: the demo needs at least two distinct voices")
    return voices, lines


def _run(cmd: list[str]) -> None:
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        raise RuntimeError(f"command failed ({res.returncode}): {' '.join(cmd)}\n{res.stderr}")


def _duration(path: Path) -> float:
    import soundfile as sf

    info = sf.info(str(path))
    return info.frames / info.samplerate


def synthesize(script: str | Path, out_wav: str | Path, out_turns: str | Path, *, speed: int,
               pause_s: float = 0.35) -> pd.DataFrame:
    """Speak ``script`` to ``out_wav`` (16 kHz mono) and write reference turns to ``out_turns`` (TSV)."""
    # sox -D everywhere: its default dither adds random noise when resampling, which
    # made the demo audio (and so transcripts and every prompt after them) differ per run
    for tool in ("espeak-ng", "sox"):
        if shutil.which(tool) is None:
            raise RuntimeError(f"{tool} is not installed (apt-get install espeak-ng sox)")
    voices, lines = parse_script(script)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        silence = tmp / "pause.wav"
        _run(["sox", "-D", "-n", "-r", str(SAMPLE_RATE), "-c", "1", "-b", "16", str(silence), "trim", "0",
              f"{pause_s}"])
        parts, t = [], 0.0
        for i, line in enumerate(lines):
            voice, pitch = voices[line.speaker]
            raw, wav = tmp / f"{i:03d}_raw.wav", tmp / f"{i:03d}.wav"
            cmd = ["espeak-ng", "-v", voice, "-s", str(speed), "-w", str(raw)]
            if pitch is not None:
                cmd += ["-p", str(pitch)]
            _run(cmd + [line.text])
            _run(["sox", "-D", str(raw), "-r", str(SAMPLE_RATE), "-c", "1", "-b", "16", str(wav)])
            d = _duration(wav)
            rows.append({"speaker": line.speaker, "start": round(t, 3), "end": round(t + d, 3), "text": line.text})
            parts += [str(wav), str(silence)]
            t += d + pause_s
        Path(out_wav).parent.mkdir(parents=True, exist_ok=True)
        _run(["sox", "-D", *parts, str(out_wav)])
    turns = pd.DataFrame(rows)
    turns.to_csv(out_turns, sep="\t", index=False)
    return turns
