"""Ingestion of the PACT sources with schema validation.

Every data error names the file, the line (1-based, as an editor shows it; the
record's position in a JSON list), the field and the config key
(``cultalign.core.inputs``).  The validated tables keep the source columns and add
``scenario_id`` (stable, source-prefixed) and ``source``.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..core.inputs import InputError, read_records, row_error

NORMAD_COLUMNS = ["ID", "Country", "Background", "Axis", "Subaxis", "Value", "Rule-of-Thumb", "Story",
                  "Explanation", "Gold Label"]
NORMAD_REQUIRED_TEXT = ["Country", "Rule-of-Thumb", "Story", "Gold Label"]
NORMAD_LABELS = ("yes", "no", "neutral")

CULTUREATLAS_COLUMNS = ["country", "keyword", "positive_sample", "negative_sample"]
CULTUREATLAS_REQUIRED_TEXT = ["country", "positive_sample"]
# column names of the CultureAtlas benchmark release file (Assertion, Context1-3, Country, Titile [sic], Url)
CULTUREATLAS_ALIASES = {"Country": "country", "Assertion": "positive_sample", "Titile": "keyword", "Title": "keyword"}


PactDataError = InputError  # a source file that does not match its schema (file, line, field, key)
_read_any = read_records
_fail = row_error


def _check_columns(df: pd.DataFrame, required: list[str], path) -> None:
    missing = [c for c in required if c not in df.columns]
    if missing:
        raise PactDataError(path, f"missing column(s) {missing}; found {list(df.columns)}",
                            row=1 if df.attrs.get("lines") else None, field=missing[0])


def _check_text(df: pd.DataFrame, cols: list[str], path) -> None:
    for col in cols:
        vals = df[col]
        bad = vals.isna() | (vals.astype(str).str.strip() == "")
        if bad.any():
            raise _fail(df, int(bad.to_numpy().nonzero()[0][0]), col, "empty value")


def load_normad(path: str | Path) -> pd.DataFrame:
    """Read and validate a NormAd-ETI file (``normad_etiquette_final_data.csv`` schema)."""
    df = _read_any(path)
    _check_columns(df, NORMAD_COLUMNS, path)
    df = df.astype({c: str for c in NORMAD_COLUMNS})
    _check_text(df, NORMAD_REQUIRED_TEXT, path)
    labels = df["Gold Label"].str.strip().str.lower()
    bad = ~labels.isin(NORMAD_LABELS)
    if bad.any():
        i = int(bad.to_numpy().nonzero()[0][0])
        raise _fail(df, i, "Gold Label", f"{df['Gold Label'].iloc[i]!r} is not one of {list(NORMAD_LABELS)}")
    dup = df["ID"].duplicated()
    if dup.any():
        i = int(dup.to_numpy().nonzero()[0][0])
        raise _fail(df, i, "ID", f"duplicate ID {df['ID'].iloc[i]!r}")
    df["Gold Label"] = labels
    df.insert(0, "source", "normad")
    df.insert(0, "scenario_id", "normad-" + df["ID"].str.strip())
    df["country"] = df["Country"].map(normalise_country_label)
    return df.reset_index(drop=True)


def load_cultureatlas(path: str | Path) -> pd.DataFrame:
    """Read and validate CultureAtlas rows (assertion with positive and negative samples per country)."""
    df = _read_any(path)
    if "country" not in df.columns and "Country" in df.columns:  # release-file layout
        df = df.rename(columns=CULTUREATLAS_ALIASES)
        if "negative_sample" not in df.columns:
            df["negative_sample"] = ""
    _check_columns(df, CULTUREATLAS_COLUMNS, path)
    for c in CULTUREATLAS_COLUMNS:
        df[c] = df[c].fillna("").astype(str)
    _check_text(df, CULTUREATLAS_REQUIRED_TEXT, path)
    df.insert(0, "source", "cultureatlas")
    df.insert(0, "scenario_id", [f"ca-{i:06d}" for i in range(1, len(df) + 1)])
    df["country"] = df["country"].map(normalise_country_label)
    df["negative_is_copy"] = df["negative_sample"].str.strip() == df["positive_sample"].str.strip()
    return df.reset_index(drop=True)


def normalise_country_label(label: str) -> str:
    """'united_states_of_america' -> 'United States Of America' (display form; geography resolves it)."""
    return " ".join(w.capitalize() if w.islower() else w for w in str(label).replace("_", " ").split())


def normad_summary(df: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Overall counts (rows, countries, gold labels) and per-country gold-label counts."""
    counts = df["Gold Label"].value_counts()
    overall = pd.DataFrame([
        {"quantity": "rows", "value": len(df)},
        {"quantity": "countries", "value": df["Country"].nunique()},
        *[{"quantity": f"gold_{lab}", "value": int(counts.get(lab, 0))} for lab in NORMAD_LABELS],
    ])
    per_country = (pd.crosstab(df["Country"], df["Gold Label"]).reindex(columns=["neutral", "no", "yes"],
                                                                       fill_value=0).reset_index())
    per_country.columns.name = None
    return overall, per_country


def cultureatlas_summary(df: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame([
        {"quantity": "rows", "value": len(df)},
        {"quantity": "countries", "value": df["country"].nunique()},
        {"quantity": "keywords", "value": df["keyword"].nunique()},
        {"quantity": "negative_is_copy", "value": int(df["negative_is_copy"].sum())},
    ])
