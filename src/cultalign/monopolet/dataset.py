"""Dataset statistics (the paper's Table 1) and audio-stage quality figures."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd


def dataset_stats(episodes: pd.DataFrame, discarded: pd.DataFrame, sections: pd.DataFrame,
                  dilemmas: pd.DataFrame, panel: pd.DataFrame) -> pd.DataFrame:
    ok = sections[sections["status"] == "ok"]
    valid_d = dilemmas[dilemmas["valid"].astype(bool)]
    n_words_d = valid_d["dilemma"].fillna("").str.split().str.len()
    pv = panel[panel["valid"].astype(bool)]
    per_ep = ok.groupby("episode_id").size()
    rows = [
        ("episodes_with_dilemmas", len(episodes)),
        ("episodes_discarded_no_dilemmas", len(discarded)),
        ("dilemma_summaries", int(episodes["n_dilemmas"].sum())),
        ("median_dilemmas_per_episode", float(episodes["n_dilemmas"].median()) if len(episodes) else np.nan),
        ("sections_mapped", len(ok)),
        ("sections_unmapped", int((sections["status"] == "unmapped").sum())),
        ("sections_collision", int((sections["status"] == "collision").sum())),
        ("sections_dropped_longest", int((sections["status"] == "dropped_longest").sum())),
        ("median_sections_per_episode", float(per_ep.median()) if len(per_ep) else np.nan),
        ("dilemmas", len(valid_d)),
        ("dilemmas_invalid_extraction", int(len(dilemmas) - len(valid_d))),
        ("mean_words_per_dilemma", float(n_words_d.mean()) if len(valid_d) else np.nan),
        ("mean_words_per_section", float(ok["n_words"].mean()) if len(ok) else np.nan),
        ("panel_solutions", int(pv["n_solutions"].sum())),
        ("mean_panel_solutions_per_dilemma", float(pv["n_solutions"].mean()) if len(pv) else np.nan),
        ("panel_solutions_not_advised", int(sum(sum(s["stance"] == "not_advised" for s in json.loads(x))
                                                for x in pv["solutions"]))),
        ("audio_hours", float(episodes["audio_seconds"].sum() / 3600) if "audio_seconds" in episodes else np.nan),
    ]
    return pd.DataFrame(rows, columns=["quantity", "value"])
