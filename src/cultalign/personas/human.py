"""Human ground truth: Johnson's IPIP-NEO raw files (fixed width), keying, per-country trait scores.

Two raw files (Johnson 2014, OSF tbmh5), selected by ``human.forms`` /
``ground_truth_form``; :meth:`JohnsonLayout.for_form` gives each layout:

* ``IPIP120.dat`` (619,150 records of 151 characters): CASE cols 1-6, SEX 7,
  AGE 8-9, SEC 10-11, MIN 12-13, HOUR 14-15, DAY 16-17, MONTH 18-19, YEAR
  20-22, COUNTRY 23-31 (9 characters, truncated names: "South Afr"), items
  I1..I120 one digit each from column 32.
* ``IPIP300.dat`` (307,313 records of 333 characters): the same header,
  COUNTRY 23-32 (10 characters: "South Afri", "Saudi Arab"), column 33 blank,
  items I1..I300 from column 34.

Item digits are 1-5, 0 = missing.  Johnson's documentation says minus-keyed
items are stored already reverse-scored ("can simply be added"), so by
default (``stored_reversed=True``) a domain score is the plain mean of its
items; with ``stored_reversed=False`` minus-keyed items are reversed (6 - x).
:func:`keying_check` tests the convention on the data itself: a stored
reversed minus-keyed item correlates positively with the plus-keyed items of
its domain.  A record with a missing item in a domain gets no score for that
domain (counted, not imputed).  Country fields are matched against the
configured name cut to the layout's width, so one full name ("South Africa")
serves both files.

``synthesize_johnson`` writes a SYNTHETIC file in the same raw layout and
storage convention (seeded) for the embedded demo; every such file is
labelled synthetic in its name and in the counts table.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from cultalign.core.inputs import InputError, read_json, read_table, row_error
from cultalign.core.seeds import derive_seed

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

    @classmethod
    def for_form(cls, form: str, country_width: int | None = None) -> "JohnsonLayout":
        """Johnson's layout of ``ipip120`` or ``ipip300`` (a configured country width overrides)."""
        layouts = {"ipip120": cls(n_items=120, country_start=23, country_width=9, items_start=32),
                   "ipip300": cls(n_items=300, country_start=23, country_width=10, items_start=34)}
        if form not in layouts:
            raise ValueError(f"unknown Johnson form {form!r} (known: {sorted(layouts)})")
        base = layouts[form]
        if country_width is None or country_width == base.country_width:
            return base
        if base.country_start - 1 + country_width >= base.items_start:
            raise ValueError(f"{form}: country width {country_width} overlaps the items (column {base.items_start})")
        return cls(base.n_items, base.country_start, country_width, base.items_start)


def load_key(path: str | Path) -> pd.DataFrame:
    """Item key in item order: columns position (1-based), trait, minus (bool).

    Reads a JSON list of {domain, keyed} records (IPIP-NEO item files), a TSV
    with columns trait/domain and keyed, or a scoring-key CSV: a Sign column
    (+N1 / -A2, IPIP-NEO-300 scoring tool) or Key + Reverse (F/R) columns,
    ordered by its Full# / full_position / M5-120 # column when it has one
    (Johnson's data files follow the scoring tool's Full# order)."""
    p = Path(path)
    if p.suffix == ".csv":
        return _load_key_csv(p)
    if p.suffix == ".json":
        recs = read_json(p, expect=list)
        traits, minus = [], []
        for k, r in enumerate(recs):
            if not isinstance(r, dict):
                raise InputError(p, f"record {k + 1}: expected an object, got {type(r).__name__}")
            try:
                traits.append(trait_code(r.get("domain")))
            except ValueError as e:
                raise InputError(p, f"record {k + 1}: {e}", field="domain") from None
            if r.get("keyed") not in ("plus", "minus"):
                raise InputError(p, f"record {k + 1}: expected plus/minus, got {r.get('keyed')!r}", field="keyed")
            minus.append(r["keyed"] == "minus")
    else:
        df = read_table(p, sep="\t", dtype=str, comment="#", required=["keyed"])
        col = "trait" if "trait" in df.columns else "domain"
        if col not in df.columns:
            raise InputError(p, f"missing column 'trait' (or 'domain'); found {list(df.columns)}", row=1, field="trait")
        traits, minus = [], []
        for k, (_, r) in enumerate(df.iterrows()):
            try:
                traits.append(trait_code(r[col]))
            except ValueError as e:
                raise row_error(df, k, col, str(e)) from None
            if r["keyed"] not in ("plus", "minus"):
                raise row_error(df, k, "keyed", f"expected plus/minus, got {r['keyed']!r}")
            minus.append(r["keyed"] == "minus")
    return pd.DataFrame({"position": range(1, len(traits) + 1), "trait": traits, "minus": minus})


def _load_key_csv(p: Path) -> pd.DataFrame:
    df = read_table(p, dtype=str)
    cols = {c.strip().lower(): c for c in df.columns}
    order = next((cols[c] for c in ("full#", "full_position", "m5-120 #") if c in cols), None)
    if order:
        read_table(p, dtype=str, numeric=[order], nonempty=[order])  # a bad position fails naming its line
        df = df.assign(_pos=pd.to_numeric(df[order]), _k=range(len(df))).sort_values("_pos", kind="stable")
    else:
        df = df.assign(_k=range(len(df)))
    lines = df.attrs.get("lines") or []
    traits, minus = [], []
    for _, r in df.iterrows():
        try:
            if "sign" in cols:
                sign = str(r[cols["sign"]]).strip()
                if sign[:1] not in "+-" or len(sign) < 2:
                    raise ValueError(f"expected a sign like +N1 or -A2, got {sign!r}")
                traits.append(trait_code(sign[1]))
                minus.append(sign[0] == "-")
            elif "key" in cols and "reverse" in cols:
                traits.append(trait_code(str(r[cols["key"]]).strip()[:1]))
                rev = str(r[cols["reverse"]]).strip()
                if rev not in ("F", "R"):
                    raise ValueError(f"field 'Reverse': expected F or R, got {rev!r}")
                minus.append(rev == "R")
            else:
                raise ValueError("no Sign column and no Key + Reverse columns")
        except ValueError as e:
            k = int(r["_k"])
            raise InputError(p, str(e), row=lines[k] if k < len(lines) else None) from None
    return pd.DataFrame({"position": range(1, len(traits) + 1), "trait": traits, "minus": minus})


def read_johnson(path: str | Path, layout: JohnsonLayout, countries: dict[str, str]) -> tuple[pd.DataFrame, dict]:
    """Records of the wanted countries: {our country id: raw COUNTRY field value}.

    Returns (frame with columns country, case, i1..iN as int8, stats) where
    stats counts all lines, malformed lines (wrong width / non-digit items) and
    records per raw country field of interest."""
    want = {v.strip()[: layout.country_width].strip(): k for k, v in countries.items()}
    c0, c1 = layout.country_start - 1, layout.country_start - 1 + layout.country_width
    i0 = layout.items_start - 1
    rows, ids, cases = [], [], []
    n_lines = malformed = 0
    p = Path(path)
    if not p.is_file():
        raise InputError(p, "file does not exist")
    if p.stat().st_size == 0:
        raise InputError(p, "the file is empty (expected fixed-width respondent records)")
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


def _scored_items(records: pd.DataFrame, key: pd.DataFrame, stored_reversed: bool) -> np.ndarray:
    items = records[[f"i{j}" for j in range(1, len(key) + 1)]].to_numpy(dtype=float)
    items[items == 0] = np.nan
    if not stored_reversed:
        minus = key["minus"].to_numpy()
        items[:, minus] = 6 - items[:, minus]
    return items


def score_domains(records: pd.DataFrame, key: pd.DataFrame, stored_reversed: bool = False) -> pd.DataFrame:
    """Mean item score per domain, minus-keyed items reversed unless the file stores them reversed;
    NaN where a domain has a missing (0) item."""
    items = _scored_items(records, key, stored_reversed)
    out = records[["country", "case"]].copy()
    for t in TRAITS:
        cols = (key["trait"] == t).to_numpy()
        out[t] = items[:, cols].mean(axis=1) if cols.any() else np.nan
    return out


def keying_check(records: pd.DataFrame, key: pd.DataFrame, stored_reversed: bool, max_rows: int = 20000) -> dict:
    """Median correlation of each minus-keyed item, as scored, with the mean of its domain's plus-keyed
    items (first ``max_rows`` complete records).  Correct scoring gives a positive median; a negative one
    means the storage convention (``stored_reversed``) is wrong for this file."""
    items = _scored_items(records.head(max_rows), key, stored_reversed)
    rs = []
    for t in TRAITS:
        plus = ((key["trait"] == t) & ~key["minus"]).to_numpy()
        if not plus.any():
            continue
        ref = items[:, plus].mean(axis=1)
        for j in np.flatnonzero(((key["trait"] == t) & key["minus"]).to_numpy()):
            ok = ~np.isnan(items[:, j]) & ~np.isnan(ref)
            if ok.sum() > 2 and items[ok, j].std() > 0 and ref[ok].std() > 0:
                rs.append(float(np.corrcoef(items[ok, j], ref[ok])[0, 1]))
    med = float(np.median(rs)) if rs else float("nan")
    return {"minus_items_checked": len(rs), "median_r_minus_vs_plus": med,
            "consistent": bool(med > 0) if rs else None}


def synthesize_johnson(path: str | Path, key: pd.DataFrame, counts: dict[str, int], seed: int,
                       layout: JohnsonLayout, noise_countries: dict[str, int] | None = None,
                       stored_reversed: bool = False) -> pd.DataFrame:
    """Write a SYNTHETIC raw file in Johnson's layout; returns the generating country means.

    Model: each respondent has a latent z_t ~ N(mu_country,t, 0.7) per trait;
    item response = round(3 + z_t * (+1 or -1 by keying) + N(0, 0.8)) clipped
    to 1..5; 1% of item answers are set to 0 (missing), as in the raw data.
    ``stored_reversed`` stores minus-keyed items reverse-scored (Johnson's files).
    Keys of ``counts`` are country names, cut to the layout's country width; the draws take
    their own stream from ``seed``."""
    rng = np.random.default_rng(derive_seed(seed, "personas", "demo", "synthetic_johnson"))
    allc = dict(counts)
    allc.update(noise_countries or {})
    means = {c: rng.uniform(-0.8, 0.8, size=len(TRAITS)) for c in allc}
    tidx = np.array([TRAITS.index(t) for t in key["trait"]])
    sign = np.where(key["minus"].to_numpy(), -1.0, 1.0)
    lines, case = [], 0
    for c, n in allc.items():
        z = rng.normal(means[c], 0.7, size=(n, len(TRAITS)))
        x = np.rint(3 + z[:, tidx] * sign + rng.normal(0, 0.8, size=(n, len(tidx)))).clip(1, 5).astype(int)
        if stored_reversed:
            x[:, key["minus"].to_numpy()] = 6 - x[:, key["minus"].to_numpy()]
        x[rng.random(x.shape) < 0.01] = 0
        for row in x:
            case += 1
            sex, age = 1 + case % 2, 18 + case % 50
            head = f"{case:6d}{sex:1d}{age:2d}{0:2d}{0:2d}{12:2d}{1:2d}{1:2d}{99:3d}"
            gap = " " * (layout.items_start - layout.country_start - layout.country_width)
            lines.append(head + f"{c[: layout.country_width]:<{layout.country_width}}" + gap + "".join(map(str, row)))
    assert all(len(s) == layout.width for s in lines)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as fh:
        fh.write("".join(s + "\r\n" for s in lines))
    return pd.DataFrame([{"johnson_country": c, **dict(zip(TRAITS, 3 + m))} for c, m in means.items()])


# Respondents of a country outside the study in the SYNTHETIC demo file (read_johnson must skip them).
DEMO_OTHER_COUNTRIES = {"Germany": 40}


def demo_johnson(path: str | Path, key_path: str | Path, form: str, country_width: int | None,
                 stored_reversed: bool, respondents: list[tuple[str, int]], johnson: dict[str, str],
                 seed: int) -> tuple[pd.DataFrame, int, dict[str, int]]:
    """The SYNTHETIC demo file of ``form`` at ``path`` (:func:`synthesize_johnson`): ``respondents``
    (country id, n) in that order, each written under its Johnson name (``johnson``: id -> name),
    plus :data:`DEMO_OTHER_COUNTRIES`.  Returns (generating means, labelled synthetic; the derived seed;
    respondents per Johnson name)."""
    key = load_key(key_path)
    layout = JohnsonLayout.for_form(form, country_width)
    counts = {johnson[c]: int(n) for c, n in respondents}
    seed = derive_seed(seed, "personas", "demo", "synthetic_johnson", form)
    means = synthesize_johnson(path, key, counts, seed, layout, noise_countries=DEMO_OTHER_COUNTRIES,
                               stored_reversed=stored_reversed)
    means.insert(0, "note", "SYNTHETIC generating means (not human data)")
    return means, seed, counts


def human_scores(raw: str | Path, key_path: str | Path, form: str, country_width: int | None,
                 stored_reversed: bool, countries: list[str], johnson: dict[str, str],
                 paper_n: dict[str, int | None]) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    """Per-record trait scores of ``countries`` (ids; ``johnson``: id -> COUNTRY field) from a Johnson
    raw file, and the record counts per country (one row per id, in the given order) beside the
    paper's n.  Fails when the file's keying contradicts ``stored_reversed``.  Returns (scores, counts,
    provenance keywords for both tables' sidecars)."""
    key = load_key(key_path)
    layout = JohnsonLayout.for_form(form, country_width)
    if len(key) != layout.n_items:
        raise ValueError(f"{key_path}: {len(key)} items, but the {form} file has {layout.n_items}")
    fields = {c: johnson[c] for c in countries if johnson.get(c)}
    recs, stats = read_johnson(raw, layout, fields)
    keying = keying_check(recs, key, stored_reversed)
    if keying["consistent"] is False:
        raise ValueError(f"{raw}: minus-keyed items correlate negatively with their domain's plus-keyed items "
                         f"(median r = {keying['median_r_minus_vs_plus']:.2f}) under human.stored_reversed="
                         f"{stored_reversed}: this file stores them the other way; set human.stored_reversed: "
                         f"{not stored_reversed}")
    scores = score_domains(recs, key, stored_reversed)
    synthetic = "SYNTHETIC" in Path(raw).name
    rows = []
    for c in countries:
        s = scores[scores["country"] == c]
        complete = int(s[list(TRAITS)].notna().all(axis=1).sum())
        n_paper = paper_n.get(c)
        rows.append({"country": c, "johnson_field": (johnson.get(c) or "")[: layout.country_width], "form": form,
                     "records": len(s), "complete_records": complete, "paper_n": n_paper,
                     "matches_paper": (len(s) == n_paper) if not synthetic else False,
                     "data": "SYNTHETIC (demo)" if synthetic else "Johnson IPIP-NEO"})
    provenance = {"counts": {"lines": stats["lines"], "malformed": stats["malformed"], "records_kept": len(recs),
                             **keying},
                  "extra": {"raw_file": str(raw), "synthetic": synthetic, "key": str(key_path)}}
    return scores, pd.DataFrame(rows), provenance
