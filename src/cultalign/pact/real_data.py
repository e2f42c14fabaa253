"""PACT's model-free tables from real inputs, for the real-data claims (``config/real-data.yaml``,
rules ``real_data_normad`` and ``real_data_pact_site`` in ``rules/pact/real_data.smk``).

Each function reads one real input and returns a ``quantity``/``value`` table (plus the columns
that say what a row is) that claims in ``config/claims.yaml`` select rows of:

* :func:`normad_label_counts`: NormAd-ETI's per-country gold-label table (Country, neutral, no,
  yes; ``real_data.normad_labels``): rows, countries, gold labels, and the PACT expansion of
  those scenarios (``pact.expand.expected_instances``: 48 instances per scenario).
* :func:`pact_site_data`: the PACT authors' released figure data (``real_data.pact_site_data``,
  the JSON of their project site) as a long table in the authors' units, with the derived
  numbers the paper's prose states (range of the region deltas, best uncertainty correlation,
  no-persona aggregate MAE per model, mean model consensus per frame).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..core.inputs import InputError, read_json, read_table

NORMAD_LABELS = ("yes", "no", "neutral")


def normad_label_counts(path: str | Path) -> pd.DataFrame:
    """Rows, countries and gold-label counts of NormAd-ETI from its per-country label table, and
    the number of PACT instances its scenarios expand to."""
    from .expand import expected_instances

    df = read_table(path, required=["Country", *NORMAD_LABELS], integer=list(NORMAD_LABELS),
                    nonempty=["Country", *NORMAD_LABELS])
    dup = df["Country"].duplicated()
    if dup.any():
        i = int(dup.to_numpy().nonzero()[0][0])
        raise InputError(path, f"country {df['Country'].iloc[i]!r} appears twice",
                         row=int(df.attrs["lines"][i]), field="Country")
    rows = int(df[list(NORMAD_LABELS)].to_numpy().sum())
    out = [("rows", rows), ("countries", int(df["Country"].nunique()))]
    out += [(f"gold_{lab}", int(df[lab].sum())) for lab in NORMAD_LABELS]
    out += [("normad_instances", expected_instances(rows)), ("instances_per_scenario", expected_instances(1))]
    return pd.DataFrame(out, columns=["quantity", "value"])


# series of the site data: (JSON key, the row's key field, the frame field or None, {field: authors' unit})
SITE_SERIES = {
    "modelBehavior": ("model", None, {"allow": "percent", "culture": "percent"}),
    "regionEffects": ("region", None, {"delta": "percentage points"}),
    "demographicEffects": ("factor", None, {"delta": "percentage points"}),
    "humanCountry": ("country", None, {"personalAllow": "percent", "normAllow": "percent", "gap": "percentage points"}),
    "humanRelation": ("relation", None, {"personalAgreement": "percent", "normAgreement": "percent"}),
    "alignmentAvg": ("model", None, {"majority": "percent", "mae": "fraction difference",
                                     "cultureGap": "percentage points"}),
    "alignmentFrame": ("model", "frame", {"majority": "percent", "mae": "fraction difference",
                                          "cultureGap": "percentage points"}),
    "uncertaintyAvg": ("model", None, {"corr": "correlation", "modelAgreement": "percent"}),
    "uncertaintyFrame": ("model", "frame", {"corr": "correlation", "modelAgreement": "percent"}),
}
SITE_COLUMNS = ["series", "key", "frame", "field", "value", "unit"]


def pact_site_data(path: str | Path) -> pd.DataFrame:
    """The authors' figure data as rows (series, key, frame, field, value, unit), then the
    derived rows (series ``derived``)."""
    data = read_json(path, expect=dict)
    rows = []
    for series, (key_field, frame_field, fields) in SITE_SERIES.items():
        records = data.get(series)
        if not isinstance(records, list) or not records:
            raise InputError(path, f"expected a non-empty list under {series!r}", field=series)
        for i, rec in enumerate(records):
            need = [key_field, *([frame_field] if frame_field else []), *fields]
            missing = [f for f in need if not isinstance(rec, dict) or f not in rec]
            if missing:
                raise InputError(path, f"{series}[{i}] lacks {missing}", field=f"{series}[{i}].{missing[0]}")
            for f, unit in fields.items():
                v = rec[f]
                if not isinstance(v, (int, float)) or isinstance(v, bool):
                    raise InputError(path, f"{series}[{i}].{f} is {v!r}, not a number", field=f"{series}[{i}].{f}")
                rows.append((series, str(rec[key_field]), str(rec[frame_field]) if frame_field else "all", f,
                             float(v), unit))
    t = pd.DataFrame(rows, columns=SITE_COLUMNS)
    return pd.concat([t, _site_derived(t)], ignore_index=True)


def _site_derived(t: pd.DataFrame) -> pd.DataFrame:
    def part(series, field):
        return t[(t.series == series) & (t.field == field)]

    rows = []
    region = part("regionEffects", "delta")["value"]
    rows.append(("derived", "all", "all", "region_delta_range", float(region.max() - region.min()),
                 "percentage points"))
    corr = part("uncertaintyAvg", "corr").set_index("key")["value"]
    rows.append(("derived", str(corr.idxmax()), "all", "best_uncertainty_corr", float(corr.max()), "correlation"))
    # section 5.3's no-persona "MAE" = |model - human culture rate| of each frame, averaged over the two frames
    gaps = part("alignmentFrame", "cultureGap")
    for model, g in gaps.groupby("key", sort=True):
        rows.append(("derived", model, "all", "aggregate_mae", float((g["value"].abs() / 100).mean()),
                     "fraction difference"))
    # E.2: persona-conditioned model consensus per frame, averaged over the models
    agree = part("uncertaintyFrame", "modelAgreement")
    for frame, g in agree.groupby("frame", sort=True):
        rows.append(("derived", "mean_over_models", frame, "model_consensus", float(g["value"].mean()), "percent"))
    # Figure 6A: personal minus norm allow rate per participant country, from the two rates
    hc = t[t.series == "humanCountry"].pivot(index="key", columns="field", values="value")
    for country, r in hc.iterrows():
        rows.append(("derived", country, "all", "gap_from_rates", float(r["personalAllow"] - r["normAllow"]),
                     "percentage points"))
    return pd.DataFrame(rows, columns=SITE_COLUMNS)
