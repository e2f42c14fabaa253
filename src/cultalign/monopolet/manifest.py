"""Episode manifest: audio file name, release date, guests and one-sentence
dilemma summaries per episode (JSON).  Errors name the file, the row
(episode index and id) and the field.  Episodes without dilemmas are
discarded and counted.  Reads no audio (``episodes`` adds the audio's
duration), so the planning rule can count dilemmas without the audio stack."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import pandas as pd

from ..core.inputs import InputError, read_json

ID_RE = re.compile(r"^[A-Za-z0-9_.-]+$")


class ManifestError(InputError):
    """The episode manifest does not match its schema (file, episode, field and config key named)."""

    def __init__(self, path, problem, *, field=None):
        super().__init__(path, problem, field=field)


def _err(path, i, eid, field, msg) -> ManifestError:
    return ManifestError(path, f"row {i} (episode_id={eid!r}): {msg}", field=field)


def load_manifest(path: str | Path) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """(episodes kept, dilemma summaries, episodes discarded for lacking dilemmas)."""
    path = Path(path)
    data = read_json(path)
    episodes = data.get("episodes") if isinstance(data, dict) else data
    if not isinstance(episodes, list):
        raise ManifestError(path, "expected a list of episodes (or an object with key 'episodes')")
    kept, dilemmas, dropped, seen = [], [], [], set()
    for i, ep in enumerate(episodes):
        eid = ep.get("episode_id") if isinstance(ep, dict) else None
        if not isinstance(ep, dict):
            raise ManifestError(path, f"row {i}: expected an object, got {type(ep).__name__}")
        for field in ("episode_id", "audio", "release_date", "guests", "dilemmas"):
            if field not in ep:
                raise _err(path, i, eid, field, "missing")
        if not isinstance(eid, str) or not ID_RE.match(eid):
            raise _err(path, i, eid, "episode_id", "must be a string of letters, digits, '_', '-', '.'")
        if eid in seen:
            raise _err(path, i, eid, "episode_id", "duplicate")
        seen.add(eid)
        if not isinstance(ep["audio"], str) or not ep["audio"]:
            raise _err(path, i, eid, "audio", "must be a file name relative to the audio folder")
        try:
            dt.date.fromisoformat(str(ep["release_date"]))
        except ValueError:
            raise _err(path, i, eid, "release_date", f"not an ISO date (YYYY-MM-DD): {ep['release_date']!r}") from None
        if not isinstance(ep["guests"], list) or not all(isinstance(g, str) for g in ep["guests"]):
            raise _err(path, i, eid, "guests", "must be a list of names")
        ds = ep["dilemmas"]
        if ds is None:
            ds = []
        if not isinstance(ds, list) or not all(isinstance(d, str) for d in ds):
            raise _err(path, i, eid, "dilemmas", "must be a list of one-sentence summaries")
        ds = [d.strip() for d in ds if d.strip()]
        row = {"episode_id": eid, "audio": ep["audio"], "release_date": str(ep["release_date"]),
               "guests": "; ".join(ep["guests"]), "n_guests": len(ep["guests"]), "n_dilemmas": len(ds)}
        if not ds:
            dropped.append({**row, "reason": "no dilemmas in metadata"})
            continue
        kept.append(row)
        for j, summary in enumerate(ds):
            dilemmas.append({"dilemma_id": f"{eid}__d{j:02d}", "episode_id": eid, "dilemma_index": j,
                             "summary": summary})
    cols = ["episode_id", "audio", "release_date", "guests", "n_guests", "n_dilemmas"]
    return (pd.DataFrame(kept, columns=cols),
            pd.DataFrame(dilemmas, columns=["dilemma_id", "episode_id", "dilemma_index", "summary"]),
            pd.DataFrame(dropped, columns=cols + ["reason"]))
