"""Speaker diarization and merging speaker labels into transcript segments.

Two backends give ``turns`` tables (speaker, start, end):

* ``pyannote``: a pyannote.audio ``Pipeline`` loaded from a pipeline
  configuration (a local folder with config.yaml, or at paper scale the
  pretrained pipeline id with a token read from an environment variable).
* ``resemblyzer``: speaker embeddings from resemblyzer's shipped encoder on
  sliding windows, agglomerative clustering (fixed number of speakers when
  known, else a cosine distance threshold), runs of equal labels as turns.
"""

from __future__ import annotations

import logging
import os
from dataclasses import MISSING, dataclass, fields
from pathlib import Path

import numpy as np
import pandas as pd

log = logging.getLogger(__name__)
TURN_COLUMNS = ["speaker", "start", "end"]


@dataclass
class DiarizationSettings:
    """Config ``monopolet.diarization`` (the backend's keys), the number of speakers, and two
    resemblyzer constants."""

    backend: str
    pipeline: str | None  # pyannote: local folder with config.yaml, or a hub id at paper scale
    token_env: str | None
    rate: float  # resemblyzer: embeddings per second
    distance_threshold: float  # resemblyzer: cosine distance when the number of speakers is unknown
    num_speakers: int | None  # None: unknown (resemblyzer clusters by distance_threshold)
    min_turn_s: float = 0.5
    energy_floor_db: float = -45.0

    @classmethod
    def from_config(cls, section) -> "DiarizationSettings":
        """From a mapping holding every field without a default."""
        return cls(**{f.name: section[f.name] for f in fields(cls) if f.default is MISSING})


def load_wav16k(path: str | Path) -> np.ndarray:
    from .transcribe import decode_audio

    return decode_audio(path, sampling_rate=16000)


def _runs(times: np.ndarray, labels: np.ndarray, half: float) -> pd.DataFrame:
    rows = []
    for t, lab in zip(times, labels):
        if lab < 0:
            continue
        if rows and rows[-1]["speaker"] == f"SPEAKER_{lab:02d}" and t - half <= rows[-1]["end"] + 1e-6:
            rows[-1]["end"] = float(t + half)
        else:
            rows.append({"speaker": f"SPEAKER_{lab:02d}", "start": float(max(0.0, t - half)), "end": float(t + half)})
    return pd.DataFrame(rows, columns=TURN_COLUMNS)


def _smooth(labels: np.ndarray, k: int = 1) -> np.ndarray:
    """Majority filter of width 2k+1 over speech frames (silence, -1, kept)."""
    out = labels.copy()
    for i in range(len(labels)):
        if labels[i] < 0:
            continue
        win = labels[max(0, i - k): i + k + 1]
        win = win[win >= 0]
        vals, counts = np.unique(win, return_counts=True)
        out[i] = vals[np.argmax(counts)]
    return out


def diarize_resemblyzer(wav_path: str | Path, settings: DiarizationSettings, encoder=None) -> pd.DataFrame:
    from resemblyzer import VoiceEncoder
    from sklearn.cluster import AgglomerativeClustering

    wav = load_wav16k(wav_path)
    encoder = encoder or VoiceEncoder("cpu", verbose=False)
    _, partials, splits = encoder.embed_utterance(wav, return_partials=True, rate=settings.rate)
    centers = np.array([(s.start + min(s.stop, len(wav))) / 2 / 16000 for s in splits])
    # frames whose centre region is silent are not speech: no speaker label
    energy = []
    for s in splits:
        seg = wav[s.start: min(s.stop, len(wav))]
        rms = float(np.sqrt(np.mean(seg ** 2))) if len(seg) else 0.0
        energy.append(20 * np.log10(rms + 1e-9))
    speech = np.array(energy) > settings.energy_floor_db
    labels = np.full(len(partials), -1)
    X = partials[speech]
    if len(X) >= 2:
        if settings.num_speakers:
            n = min(settings.num_speakers, len(X))
            cl = AgglomerativeClustering(n_clusters=n, metric="cosine", linkage="average")
        else:
            cl = AgglomerativeClustering(n_clusters=None, metric="cosine", linkage="average",
                                        distance_threshold=settings.distance_threshold)
        labels[speech] = cl.fit_predict(X)
    elif len(X) == 1:
        labels[speech] = 0
    labels = _smooth(labels)
    turns = _runs(centers, labels, half=0.5 / settings.rate)
    return turns[(turns.end - turns.start) >= settings.min_turn_s].reset_index(drop=True)


def diarize_pyannote(wav_path: str | Path, settings: DiarizationSettings, pipeline=None) -> pd.DataFrame:
    """Run a pyannote.audio pipeline (local config folder or hub id + token from ``token_env``)."""
    if pipeline is None:
        pipeline = load_pyannote_pipeline(settings.pipeline, settings.token_env)
    kwargs = {"num_speakers": settings.num_speakers} if settings.num_speakers else {}
    out = pipeline(str(wav_path), **kwargs)
    annotation = getattr(out, "speaker_diarization", out)  # pyannote 4 returns DiarizeOutput
    rows = [{"speaker": str(spk), "start": float(seg.start), "end": float(seg.end)}
            for seg, _, spk in annotation.itertracks(yield_label=True)]
    return pd.DataFrame(rows, columns=TURN_COLUMNS)


def load_pyannote_pipeline(source: str | None, token_env: str | None = None):
    from pyannote.audio import Pipeline

    if not source:
        raise ValueError("monopolet.diarization.pipeline: set a local pipeline folder or a pretrained pipeline id")
    token = os.environ.get(token_env) if token_env else None
    if Path(source).exists():
        return Pipeline.from_pretrained(Path(source))
    if token is None:
        raise ValueError(f"pyannote pipeline {source!r} is not a local folder and ${token_env} is not set")
    return Pipeline.from_pretrained(source, token=token)


def diarize(wav_path: str | Path, settings: DiarizationSettings) -> pd.DataFrame:
    if settings.backend == "resemblyzer":
        return diarize_resemblyzer(wav_path, settings)
    if settings.backend == "pyannote":
        return diarize_pyannote(wav_path, settings)
    raise ValueError(f"monopolet.diarization.backend: unknown backend {settings.backend!r}")


def merge_speakers(segments: pd.DataFrame, turns: pd.DataFrame) -> pd.DataFrame:
    """Label each transcript segment with the speaker whose turns overlap it most ("UNKNOWN" if none)."""
    out = segments.copy()
    speakers, overlaps = [], []
    for _, seg in segments.iterrows():
        ov = (np.minimum(turns["end"], seg["end"]) - np.maximum(turns["start"], seg["start"])).clip(lower=0)
        if len(turns) == 0 or ov.max() <= 0:
            speakers.append("UNKNOWN")
            overlaps.append(0.0)
            continue
        per = ov.groupby(turns["speaker"]).sum()
        speakers.append(str(per.idxmax()))
        dur = max(seg["end"] - seg["start"], 1e-6)
        overlaps.append(round(float(per.max()) / dur, 3))
    out["speaker"] = speakers
    out["speaker_overlap"] = overlaps
    return out


def speaker_purity(hyp: pd.DataFrame, ref: pd.DataFrame, step: float = 0.1) -> float:
    """Frame-level accuracy of ``hyp`` against ``ref`` under the best one-to-one label mapping."""
    from scipy.optimize import linear_sum_assignment

    end = float(max(ref["end"].max(), hyp["end"].max() if len(hyp) else 0))
    t = np.arange(0, end, step) + step / 2

    def lab(df):
        names = sorted(df["speaker"].unique())
        arr = np.full(len(t), -1)
        for _, r in df.iterrows():
            arr[(t >= r["start"]) & (t < r["end"])] = names.index(r["speaker"])
        return arr, names

    r, rn = lab(ref)
    h, hn = lab(hyp)
    mask = r >= 0
    if not mask.any() or not hn:
        return float("nan")
    C = np.zeros((len(rn), len(hn)))
    for i, j in zip(r[mask], h[mask]):
        if j >= 0:
            C[i, j] += 1
    ri, ci = linear_sum_assignment(-C)
    return float(C[ri, ci].sum() / mask.sum())
