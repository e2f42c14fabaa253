"""Transcription with faster-whisper (CTranslate2), deterministic decoding.

Returns timed segments; the real-time factor (decode wall time / audio
duration) is measured per file.
"""

from __future__ import annotations

import logging
import math
import time
from dataclasses import MISSING, dataclass, fields
from pathlib import Path

import pandas as pd

from ..core.inputs import InputError, existing_file
from ..core.progress import Progress

AudioError = InputError  # an unreadable audio file (file and config key named)

log = logging.getLogger(__name__)


def probe_audio(path: str | Path, *, key: str | None = None) -> float:
    """Duration in seconds of an audio file (PyAV, i.e. ffmpeg); a missing, empty, undecodable or
    silent-length file fails naming it."""
    p = existing_file(path, key)
    if p.stat().st_size == 0:
        raise InputError(p, "the audio file is empty", key=key)
    try:
        import av

        with av.open(str(p)) as container:
            streams = [s for s in container.streams if s.type == "audio"]
            if not streams:
                raise InputError(p, "the file has no audio stream", key=key)
            dur = container.duration / 1e6 if container.duration else None
            if dur is None:  # decode to count samples
                n, sr = 0, streams[0].rate
                for frame in container.decode(streams[0]):
                    n += frame.samples
                dur = n / sr
    except InputError:
        raise
    except Exception as e:  # noqa: BLE001 - any decoder failure means a damaged file
        raise InputError(p, f"cannot decode this audio file ({type(e).__name__}: {e})", key=key) from e
    if not dur or dur <= 0:
        raise InputError(p, "the audio has zero duration", key=key)
    return float(dur)


def decode_audio(path: str | Path, *, sampling_rate: int = 16000, key: str | None = None):
    """Mono float32 samples at ``sampling_rate`` (faster-whisper's ffmpeg decoder), naming the file
    when it cannot be decoded."""
    import numpy as np
    from faster_whisper import decode_audio as _decode

    probe_audio(path, key=key)
    try:
        return _decode(str(path), sampling_rate=sampling_rate).astype(np.float32)
    except Exception as e:  # noqa: BLE001
        raise InputError(path, f"cannot decode this audio file ({type(e).__name__}: {e})", key=key) from e


@dataclass
class WhisperSettings:
    """Decoding settings: config ``monopolet.transcription`` (``cpu_threads``: the job's threads),
    then two faster-whisper options the study keeps off."""

    language: str
    beam_size: int
    temperature: float
    vad_clips: bool
    min_silence_ms: int
    compute_type: str
    cpu_threads: int
    device: str
    vad_filter: bool = False  # faster-whisper's own VAD filter; the study decodes VAD clips instead
    condition_on_previous_text: bool = False

    @classmethod
    def from_config(cls, section) -> "WhisperSettings":
        """From a mapping holding every config field (the two options keep their values)."""
        return cls(**{f.name: section[f.name] for f in fields(cls) if f.default is MISSING})


def load_model(model_dir: str | Path, settings: WhisperSettings):
    from faster_whisper import WhisperModel

    device = settings.device
    if device == "auto":
        import ctranslate2

        device = "cuda" if ctranslate2.get_cuda_device_count() > 0 else "cpu"
    return WhisperModel(str(model_dir), device=device, compute_type=settings.compute_type,
                        cpu_threads=settings.cpu_threads)


def transcribe(model, audio: str | Path, settings: WhisperSettings) -> tuple[pd.DataFrame, dict]:
    """Segments (start, end, text, avg_logprob, no_speech_prob) and timing info."""
    duration = probe_audio(audio)
    t0 = time.perf_counter()
    kwargs = {}
    if settings.vad_clips:
        clips = speech_clips(audio, settings.min_silence_ms)
        if clips:
            kwargs["clip_timestamps"] = clips
    segments, info = model.transcribe(
        str(audio), language=settings.language, beam_size=settings.beam_size,
        temperature=settings.temperature, vad_filter=settings.vad_filter,
        condition_on_previous_text=settings.condition_on_previous_text, **kwargs,
    )
    # the generator decodes lazily, segment by segment: time it fully, and log how far into the
    # audio it is (segment end / audio duration)
    progress = Progress(f"transcribe {Path(audio).name}", int(math.ceil(duration)), "audio seconds",
                        start_note=f"language {settings.language}, beam {settings.beam_size}")
    rows = []
    for i, s in enumerate(segments):
        rows.append({"segment": i, "start": round(s.start, 3), "end": round(s.end, 3), "text": s.text.strip(),
                     "avg_logprob": round(s.avg_logprob, 4), "no_speech_prob": round(s.no_speech_prob, 4)})
        progress.update(max(0, min(int(s.end), progress.total) - progress.done))
    progress.update(progress.total - progress.done)  # the tail after the last segment (silence)
    wall = time.perf_counter() - t0
    df = pd.DataFrame(rows, columns=["segment", "start", "end", "text", "avg_logprob", "no_speech_prob"])
    timing = {"audio": str(audio), "audio_seconds": round(duration, 3), "wall_seconds": round(wall, 3),
              "real_time_factor": round(wall / duration, 4), "language": info.language,
              "n_segments": len(df)}
    return df, timing


def speech_clips(audio: str | Path, min_silence_ms: int, max_speech_s: float = 25.0) -> list[float]:
    """[start, end, start, end, ...] seconds of speech regions (faster-whisper's bundled Silero VAD)."""
    from faster_whisper.vad import VadOptions, get_speech_timestamps

    wav = decode_audio(audio, sampling_rate=16000)
    ts = get_speech_timestamps(wav, VadOptions(min_silence_duration_ms=min_silence_ms,
                                               max_speech_duration_s=max_speech_s, speech_pad_ms=100))
    out: list[float] = []
    for x in ts:
        out += [x["start"] / 16000, x["end"] / 16000]
    return out
