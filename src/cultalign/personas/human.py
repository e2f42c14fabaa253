"""Human ground truth: Johnson's IPIP-NEO raw files (fixed width), keying, per-country trait scores.

Layout of IPIP120.dat (Johnson 2014, DAT120 documentation): one record per
line, CASE cols 1-6, SEX 7, AGE 8-9, SEC 10-11, MIN 12-13, HOUR 14-15, DAY
16-17, MONTH 18-19, YEAR 20-22, COUNTRY 23-31 (9 characters, truncated
names), then one digit per item (1-5; 0 = missing) from column 32.  The
IPIP-300 file is read with the same header and 300 item digits; its country
field width is configurable because the public 300-item derivatives truncate
to 10 characters.  Domain score = mean of its items with minus-keyed items
reversed (6 - x); a record with a missing item in a domain gets no score for
that domain (counted, not imputed).

``synthesize_johnson`` writes a SYNTHETIC file in the same raw layout (seeded)
for the embedded demo; every such file is labelled synthetic in its name and
in the counts table.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from .common import TRAITS, trait_code


@dataclass(frozen=True)
class JohnsonLayout:
    n_items: int = 120
    country_start: int = 23  # 1-based column
    country_width: int = 9
    items_start: int = 32

    @property
    def width(self) -> int:
        return self.items_start - 1 + self.n_items


def load_key(path: str | Path) -> pd.DataFrame:
    """Item key in item order: columns position (1-based), trait, minus (bool).

    Reads a JSON list of {domain, keyed} records (IPIP-NEO item files) or a TSV
    with columns trait/domain and keyed."""
    p = Path(path)
    if p.suffix == ".json":
        recs = json.loads(p.read_text())
        traits = [trait_code(r["domain"]) for r in recs]
        minus = [r["keyed"] == "minus" for r in recs]
    else:
        df = pd.read_csv(p, sep="\t", dtype=str, comment="#")
        col = "trait" if "trait" in df.columns else "domain"
        traits, minus = [], []
        for k, r in df.iterrows():
            try:
                traits.append(trait_code(r[col]))
            except ValueError as e:
                raise ValueError(f"{p}: row {k + 1}: field {col!r}: {e}") from e
            if r["keyed"] not in ("plus", "minus"):
                raise ValueError(f"{p}: row {k + 1}: field 'keyed': expected plus/minus, got {r['keyed']!r}")
            minus.append(r["keyed"] == "minus")
    return pd.DataFrame({"position": range(1, len(traits) + 1), "trait": traits, "minus": minus})


def read_johnson(path: str | Path, layout: JohnsonLayout, countries: dict[str, str]) -> tuple[pd.DataFrame, dict]:
    """Records of the wanted countries: {our country id: raw COUNTRY field value}.

    Returns (frame with columns country, case, i1..iN as int8, stats) where
    stats counts all lines, malformed lines (wrong width / non-digit items) and
    records per raw country field of interest."""
    want = {v.strip(): k for k, v in countries.items()}
    c0, c1 = layout.country_start - 1, layout.country_start - 1 + layout.country_width
    i0 = layout.items_start - 1
    rows, ids, cases = [], [], []
    n_lines = malformed = 0
    with open(path, "rb") as fh:
        for line in fh:
            n_lines += 1
            line = line.rstrip(b"\r\n")
            if len(line) < layout.width:
                malformed += 1
                continue
            field = line[c0:c1].decode("latin-1").strip()
            if field not in want:
                continue
            items = line[i0 : i0 + layout.n_items]
            if not items.isdigit():
                malformed += 1
                continue
            rows.append(np.frombuffer(items, dtype=np.uint8) - 48)
            ids.append(want[field])
            cases.append(line[:6].decode("latin-1").strip())
    mat = np.vstack(rows).astype(np.int8) if rows else np.zeros((0, layout.n_items), dtype=np.int8)
    df = pd.DataFrame(mat, columns=[f"i{j + 1}" for j in range(layout.n_items)])
    df.insert(0, "case", cases)
    df.insert(0, "country", ids)
    return df, {"lines": n_lines, "malformed": malformed}


def score_domains(records: pd.DataFrame, key: pd.DataFrame) -> pd.DataFrame:
    """Mean item score per domain (minus-keyed reversed); NaN where a domain has a missing (0) item."""
    n = len(key)
    items = records[[f"i{j}" for j in range(1, n + 1)]].to_numpy(dtype=float)
    items[items == 0] = np.nan
    minus = key["minus"].to_numpy()
    items[:, minus] = 6 - items[:, minus]
    out = records[["country", "case"]].copy()
    for t in TRAITS:
        cols = (key["trait"] == t).to_numpy()
        out[t] = items[:, cols].mean(axis=1) if cols.any() else np.nan
    return out


def synthesize_johnson(path: str | Path, key: pd.DataFrame, counts: dict[str, int], seed: int,
                       layout: JohnsonLayout, noise_countries: dict[str, int] | None = None) -> pd.DataFrame:
    """Write a SYNTHETIC raw file in Johnson's layout; returns the generating country means.

    Model: each respondent has a latent z_t ~ N(mu_country,t, 0.7) per trait;
    item response = round(3 + z_t * (+1 or -1 by keying) + N(0, 0.8)) clipped
    to 1..5; 1% of item answers are set to 0 (missing), as in the raw data."""
    rng = np.random.default_rng(seed)
    allc = dict(counts)
    allc.update(noise_countries or {})
    means = {c: rng.uniform(-0.8, 0.8, size=len(TRAITS)) for c in allc}
    tidx = np.array([TRAITS.index(t) for t in key["trait"]])
    sign = np.where(key["minus"].to_numpy(), -1.0, 1.0)
    lines, case = [], 0
    for c, n in allc.items():
        z = rng.normal(means[c], 0.7, size=(n, len(TRAITS)))
        x = np.rint(3 + z[:, tidx] * sign + rng.normal(0, 0.8, size=(n, len(tidx)))).clip(1, 5).astype(int)
        x[rng.random(x.shape) < 0.01] = 0
        for row in x:
            case += 1
            sex, age = 1 + case % 2, 18 + case % 50
            head = f"{case:6d}{sex:1d}{age:2d}{0:2d}{0:2d}{12:2d}{1:2d}{1:2d}{99:3d}"
            lines.append(head + f"{c[: layout.country_width]:<{layout.country_width}}" + "".join(map(str, row)))
    assert all(len(s) == layout.width for s in lines)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as fh:
        fh.write("".join(s + "\r\n" for s in lines))
    return pd.DataFrame([{"johnson_country": c, **dict(zip(TRAITS, 3 + m))} for c, m in means.items()])
