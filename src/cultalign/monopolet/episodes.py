"""Episodes: the manifest (``manifest``) with the duration of each episode's audio."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from .manifest import ManifestError, load_manifest

__all__ = ["ManifestError", "episode_tables", "load_manifest"]


def episode_tables(manifest: str | Path, audio_dir: str | Path) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """(episodes kept with the duration of their audio, dilemma summaries, episodes discarded).
    Missing, empty or undecodable audio fails here, naming the file."""
    from ..audio.transcribe import probe_audio

    episodes, dilemmas, discarded = load_manifest(manifest)
    episodes["audio_seconds"] = [round(probe_audio(Path(audio_dir) / a), 3) for a in episodes["audio"]]
    return episodes, dilemmas, discarded
