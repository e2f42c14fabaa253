"""Claims scorecard: the papers' numbers vs what this run computed.

``config/claims.yaml`` holds entries::

    - id: pact.instances_total
      paper: pact                 # pact | personas | monopolet
      place: "Section 3.3"        # where the paper states it
      statement: "318,720 instances in all"
      value: 318720
      tolerance: 0                # absolute; or rel_tolerance: 0.05
      result: results/pact/tables/construction_counts.tsv
      column: value
      where: {quantity: instances_total}   # selects one row
      scale: paper                # paper: only comparable on the papers' full inputs

Status per claim: ``reproduced`` (within tolerance), ``differs``,
``not computable: synthetic input`` (the result table's provenance sidecar
says it was computed from synthetic inputs; the reason names their config
keys), or ``not computable`` with the reason (study not configured, result
not produced, demo-scale inputs, row missing).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from .core.provenance import read_sidecar

SYNTHETIC_STATUS = "not computable: synthetic input"
STATUSES = ("reproduced", "differs", "not computable", SYNTHETIC_STATUS)

REQUIRED = ("id", "paper", "place", "statement", "value", "result", "column")


class ClaimsError(ValueError):
    pass


def load_claims(path: str | Path) -> list[dict[str, Any]]:
    data = yaml.safe_load(Path(path).read_text()) or {}
    claims = data.get("claims") or []
    seen = set()
    for i, c in enumerate(claims):
        missing = [k for k in REQUIRED if k not in c]
        if missing:
            raise ClaimsError(f"{path}: claim #{i} ({c.get('id', '?')}) lacks {missing}")
        if c["id"] in seen:
            raise ClaimsError(f"{path}: duplicate claim id {c['id']!r}")
        seen.add(c["id"])
    return claims


def claim_result_files(claims: list[dict], studies: list[str]) -> list[str]:
    return sorted({c["result"] for c in claims if c["paper"] in studies})


def _read_table(path: Path) -> pd.DataFrame:
    sep = "\t" if path.suffix in (".tsv", ".tab") else ","
    return pd.read_csv(path, sep=sep)


def evaluate(claims: list[dict], studies: list[str], scale: str, base: str | Path = ".") -> pd.DataFrame:
    rows = []
    cache: dict[str, pd.DataFrame] = {}
    for c in claims:
        row = {k: c.get(k) for k in ("id", "paper", "place", "statement")}
        row["paper_value"] = c["value"]
        row["reproduced_value"] = math.nan
        row["result"] = f"{c['result']}:{c['column']}"
        status, reason = None, ""
        if c["paper"] not in studies:
            status, reason = "not computable", f"study {c['paper']!r} is not in config 'studies'"
        else:
            p = Path(base) / c["result"]
            if not p.exists():
                status, reason = "not computable", f"{c['result']} was not produced by this run"
            else:
                df = cache.setdefault(c["result"], _read_table(p))
                sidecar = read_sidecar(p)
                sel = df
                for k, v in (c.get("where") or {}).items():
                    if k not in sel.columns:
                        sel = sel.iloc[0:0]
                        break
                    sel = sel[sel[k].astype(str) == str(v)]
                if c["column"] not in df.columns and list(df.columns) == ["note"] and len(df) == 1:
                    # a table that says why it was not computed (e.g. no annotation file configured)
                    status, reason = "not computable", f"{c['result']}: {df['note'].iloc[0]}"
                elif c["column"] not in df.columns or len(sel) != 1:
                    status = "not computable"
                    reason = f"{len(sel)} rows match {c.get('where')} in {c['result']} (need exactly 1)"
                else:
                    val = sel.iloc[0][c["column"]]
                    try:
                        val = float(val)
                    except (TypeError, ValueError):
                        pass
                    row["reproduced_value"] = val
                    if sidecar.get("synthetic"):
                        keys = ", ".join(sidecar.get("synthetic_inputs") or []) or "an input table"
                        status, reason = SYNTHETIC_STATUS, f"computed from synthetic input(s): {keys}"
                    elif isinstance(val, float) and math.isnan(val):
                        status, reason = "not computable", "the result is NaN with these inputs"
                    elif c.get("scale", "paper") == "paper" and scale != "paper":
                        status, reason = "not computable", "needs the paper-scale inputs (this run uses demo inputs)"
                    else:
                        status = "reproduced" if _within(val, c) else "differs"
        row["status"] = status
        row["reason"] = reason
        rows.append(row)
    return pd.DataFrame(rows, columns=["id", "paper", "place", "statement", "paper_value", "reproduced_value",
                                       "status", "reason", "result"])


def _within(val: Any, c: dict) -> bool:
    target = c["value"]
    if not isinstance(val, (int, float)) or not isinstance(target, (int, float)):
        return str(val) == str(target)
    eps = 1e-9 * max(1.0, abs(target))  # a value on the tolerance bound counts as within (float rounding)
    if "rel_tolerance" in c:
        return abs(val - target) <= abs(target) * float(c["rel_tolerance"]) + eps
    return abs(val - target) <= float(c.get("tolerance", 0)) + eps
