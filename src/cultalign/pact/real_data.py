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
  no-persona aggregate MAE per model, mean model consensus per frame), and the numbers of its
  significance table (appendix B.9, Table 13), which the JSON holds as text (series ``significance``:
  :func:`significance_rows`).
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
    rows += significance_rows(data.get("significance"), path)
    t = pd.DataFrame(rows, columns=SITE_COLUMNS)
    return pd.concat([t, _site_derived(t)], ignore_index=True)


# the numbers of one significance record's text (appendix B.9, Table 13), by field: (pattern, authors' unit)
SIGNIFICANCE_FIELDS = {
    "range_low": (r"range (\d+(?:\.\d+)?)\s*-", "percent"),        # "range 0.8-34.2 pp": allow rates
    "range_high": (r"range \d+(?:\.\d+)?\s*-\s*(\d+(?:\.\d+)?)", "percent"),
    "cramers_v": (r"Cramer V\s*=\s*(\d*\.\d+)", "cramers v"),
    "rate_a": (r"^(?:[a-z]+: )?(\d+(?:\.\d+)?)%", "percent"),       # "younger: 15.4%, older: 14.0%" / "15.8% vs"
    "rate_b": (r"(?:, [a-z]+: | vs )(\d+(?:\.\d+)?)%", "percent"),
    "diff": (r"diff\s*=\s*([+-]?\d+(?:\.\d+)?) pp", "percentage points"),
}


def significance_rows(records, path: str | Path) -> list[tuple]:
    """The numbers of the site's significance table (B.9's Table 13), whose records hold them as
    text: ``effect_size`` ("range 0.8-34.2 pp; Cramer V=0.354", "younger: 15.4%, older: 14.0%,
    diff=+1.38 pp") and ``p_value`` ("<1e-300", an upper bound: field ``p_bound``).  Key: the
    record's ``factor``; a record with no number in its text, or a p-value that is neither a
    number nor a bound, names its field."""
    import re

    if not isinstance(records, list) or not records:
        raise InputError(path, "expected a non-empty list under 'significance'", field="significance")
    rows = []
    for i, rec in enumerate(records):
        missing = [f for f in ("factor", "effect_size", "p_value") if not isinstance(rec, dict) or f not in rec]
        if missing:
            raise InputError(path, f"significance[{i}] lacks {missing}", field=f"significance[{i}].{missing[0]}")
        text, key = str(rec["effect_size"]), str(rec["factor"])
        found = [(f, float(m.group(1)), unit) for f, (pat, unit) in SIGNIFICANCE_FIELDS.items()
                 if (m := re.search(pat, text))]
        if not found:
            raise InputError(path, f"significance[{i}].effect_size {text!r} holds no number this reader knows",
                             field=f"significance[{i}].effect_size")
        rows += [("significance", key, "all", f, v, unit) for f, v, unit in found]
        p = re.fullmatch(r"\s*(<)?\s*(\d+(?:\.\d+)?(?:e-?\d+)?)\s*", str(rec["p_value"]))
        if not p:
            raise InputError(path, f"significance[{i}].p_value {rec['p_value']!r} is not a number or a bound '<x'",
                             field=f"significance[{i}].p_value")
        rows.append(("significance", key, "all", "p_bound" if p.group(1) else "p_value", float(p.group(2)), "p-value"))
    return rows


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
    # B.9: "All tests are p < 1e-300": the largest p-value (or bound) of the significance table
    ps = t[(t.series == "significance") & t.field.isin(["p_bound", "p_value"])]
    if len(ps):
        bound = "bound" if (ps["field"] == "p_bound").all() else "value"
        rows.append(("derived", "all", "all", f"significance_max_p_{bound}", float(ps["value"].max()), "p-value"))
    return pd.DataFrame(rows, columns=SITE_COLUMNS)
