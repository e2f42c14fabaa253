"""Solutions tables: one row per (agent, dilemma) with the solutions as a JSON list."""

from __future__ import annotations

import json

import pandas as pd

COLUMNS = ["dilemma_id", "solution", "action", "stance"]


def explode(status: pd.DataFrame) -> pd.DataFrame:
    """One row per solution (dilemma_id, solution index, action, stance)."""
    rows = []
    for r in status.itertuples():
        for j, s in enumerate(json.loads(r.solutions) if isinstance(r.solutions, str) and r.solutions else []):
            rows.append({"dilemma_id": r.dilemma_id, "solution": j, "action": s["action"], "stance": s["stance"]})
    return pd.DataFrame(rows, columns=COLUMNS)


def counts(status: pd.DataFrame) -> pd.Series:
    """Number of solutions per dilemma (only dilemmas whose extraction is valid)."""
    ok = status[status["valid"].astype(bool)]
    return ok.set_index("dilemma_id")["n_solutions"].astype(int)
