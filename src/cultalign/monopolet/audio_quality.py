"""Audio quality table: transcription real-time factor per episode and, for
the SYNTHETIC demo, speaker purity of the diarization against the turns the
demo scripts were spoken with (kept apart from ``dataset`` so that the
statistics rules need no audio packages)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ..core.provenance import read_sidecar
from ..core.tables import read_tsv


def audio_quality(transcript_sidecars: list[str], turns: list[str], reference_turns: list[str]) -> pd.DataFrame:
    """Real-time factor per episode and, for the demo, speaker purity vs the script's reference turns."""
    from ..audio.diarize import speaker_purity

    rows = []
    refs = {Path(p).name.split(".")[0]: p for p in reference_turns}
    for side, tp in zip(transcript_sidecars, turns):
        ep = Path(tp).name.split(".")[0]
        t = read_sidecar(str(side).removesuffix(".provenance.json")).get("timing", {})  # hash-checked
        purity = np.nan
        if ep in refs:
            purity = speaker_purity(read_tsv(tp, empty_as_na=True), read_tsv(refs[ep], empty_as_na=True))
        rows.append({"episode_id": ep, "audio_seconds": t.get("audio_seconds"), "wall_seconds": t.get("wall_seconds"),
                     "real_time_factor": t.get("real_time_factor"), "n_segments": t.get("n_segments"),
                     "speaker_purity_vs_reference": purity})
    df = pd.DataFrame(rows)
    total = {"episode_id": "ALL", "audio_seconds": df["audio_seconds"].sum(), "wall_seconds": df["wall_seconds"].sum(),
             "real_time_factor": df["wall_seconds"].sum() / df["audio_seconds"].sum() if len(df) else np.nan,
             "n_segments": df["n_segments"].sum(),
             "speaker_purity_vs_reference": df["speaker_purity_vs_reference"].mean()}
    return pd.concat([df, pd.DataFrame([total])], ignore_index=True)
