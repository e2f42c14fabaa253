"""CulturalPersonas' model-free table from a real input, for the real-data claims
(``config/real-data.yaml``, rule ``real_data_personas_release`` in ``rules/personas/real_data.smk``).

:func:`personas_release_counts`: counts of the CulturalPersonas release (``personas.release.path``):
questions per country and trait, scenarios and norms per country, and the items per trait of its
baseline instruments (Table 5), as rows that claims in ``config/claims.yaml`` select.

:func:`ipip_item_counts`: the IPIP-NEO-120 and -300 item lists of ``real_data.ipip_items``
(independent public copies, not the CulturalPersonas release): items per domain (Table 5).

:func:`repro_ks_denominator`: the Japan results of a public CulturalPersonas reproduction
(``real_data.culturalpersonas_repro``): the number of human rows its KS statistics imply.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..core.inputs import InputError, read_json, read_table


def personas_release_counts(root: str | Path, countries: dict[str, dict]) -> pd.DataFrame:
    """Counts of the CulturalPersonas release at ``root`` for ``countries`` (config
    ``personas.countries``: id -> {name, release_code}): questions (per country and per country
    x trait), scenarios and distinct norms per country, norms per country in the norms JSON, and
    the items per trait of the baseline instruments (Table 5)."""
    from .instruments import cp_items, load_instrument, trait_counts
    from .release import release_norms, release_questions, scenario_norms

    root = Path(root)
    rows = []
    total = 0
    for cid, spec in countries.items():
        code = spec["release_code"]
        q = release_questions(root, code)
        items = cp_items(q, f"{root} ({code})")
        total += len(items)
        rows.append(("questions", cid, "all", len(items)))
        rows += [("questions", cid, t, n) for t, n in trait_counts(items).items()]
        sc = read_table(root / "datasets" / "cp" / "scenarios" / f"all_{code}_scenarios.csv", keep_default_na=False,
                        required=["scenario"], nonempty=["scenario"])
        rows.append(("scenarios", cid, "all", len(sc)))
        rows.append(("scenario_norms", cid, "all", len(scenario_norms(root, code))))
        rows.append(("json_norms", cid, "all", len(release_norms(root, spec["name"]))))
    rows.append(("questions", "all", "all", total))
    per_trait = pd.DataFrame(rows, columns=["quantity", "group", "trait", "value"])
    q = per_trait[(per_trait.quantity == "questions") & (per_trait.trait != "all") & (per_trait.group != "all")]
    rows += [("questions", "all", t, int(q.loc[q.trait == t, "value"].sum())) for t in "OCEAN"]
    norms = per_trait[per_trait.quantity == "scenario_norms"]
    rows.append(("scenario_norms", "all", "all", int(norms["value"].sum())))
    base = root / "datasets" / "baselines"
    for name, kind, fname in (("bfi44", "bfi", "bfi.csv"), ("ipip120", "ipip_csv", "ipip-120.csv"),
                              ("ipip300", "ipip_csv", "ipip-300.csv"), ("big5chat", "big5chat", "big5chat.csv")):
        items = load_instrument(kind, base / fname, name, bfi_key="file")
        rows += [("instrument_items", name, t, n) for t, n in trait_counts(items).items()]
        rows.append(("instrument_items", name, "all", len(items)))
    return pd.DataFrame(rows, columns=["quantity", "group", "trait", "value"])


# the IPIP-NEO item lists of real_data.ipip_items: (source, instrument, file, format, domain field)
IPIP_LISTS = (
    ("alheimsins", "ipip120", "ipip_neo_120_items_alheimsins_en.json", "json", "domain"),
    ("psychobench", "ipip120", "mpi_120_items_big5chat_psychobench.csv", "csv", "label_ocean"),
    ("alheimsins", "ipip300", "ipip_neo_300_items_alheimsins_en.json", "json", "domain"),
    ("automoto", "ipip300", "ipip_neo_300_scoring_key_automoto.csv", "csv", "key"),
)
DOMAINS = "OCEAN"


def ipip_item_counts(folder: str | Path) -> pd.DataFrame:
    """Items per Big Five domain (and in all) of each IPIP-NEO item list in ``folder`` (config
    ``real_data.ipip_items``): columns quantity (``instrument_items``), group (instrument),
    source, trait, value.  A domain outside O, C, E, A, N (a scoring key's ``N1`` counts as N)
    fails naming the file, row and field."""
    folder = Path(folder)
    rows = []
    for source, instrument, name, fmt, field in IPIP_LISTS:
        path = folder / name
        if fmt == "json":
            items = read_json(path, expect=list)
            values = [(i + 1, it.get(field) if isinstance(it, dict) else None) for i, it in enumerate(items)]
            where = "item"
        else:
            df = read_table(path, required=[field], nonempty=[field], keep_default_na=False, dtype=str)
            values = list(zip(df.attrs["lines"], df[field]))
            where = "line"
        counts = dict.fromkeys(DOMAINS, 0)
        for row, value in values:
            domain = str(value or "")[:1]
            if domain not in counts:
                problem = f"{where} {row}: domain {value!r} is not one of {', '.join(DOMAINS)}"
                raise InputError(path, problem, row=None if fmt == "json" else int(row), field=field)
            counts[domain] += 1
        rows += [("instrument_items", instrument, source, t, n) for t, n in counts.items()]
        rows.append(("instrument_items", instrument, source, "all", len(values)))
    return pd.DataFrame(rows, columns=["quantity", "group", "source", "trait", "value"])


def repro_ks_denominator(folder: str | Path, max_n: int = 100_000) -> pd.DataFrame:
    """The smallest n for which every KS statistic of the reproduction's Japan results
    (``results_FINAL_JAPAN.csv``, row ``KS_Stat``, one column per trait) is a multiple of 1/n, to
    1e-9: a two-sample KS statistic against n human rows with one model answer per trait is k/n, so
    n is the number of Japan rows of the ground truth it read.  Columns quantity, value."""
    path = Path(folder) / "results_FINAL_JAPAN.csv"
    df = read_table(path, required=["O", "C", "E", "A", "N"], keep_default_na=False)
    first = df.columns[0]
    hit = df.index[df[first].astype(str) == "KS_Stat"]
    if len(hit) != 1:
        raise InputError(path, "expected one row 'KS_Stat' in the first column", field=first)
    i = int(hit[0])
    values = []
    for t in "OCEAN":
        try:
            v = float(df.at[i, t])
        except ValueError:
            raise InputError(path, f"KS statistic {df.at[i, t]!r} is not a number",
                             row=int(df.attrs["lines"][i]), field=t) from None
        if not 0 <= v <= 1:
            raise InputError(path, f"KS statistic {v} outside [0, 1]", row=int(df.attrs["lines"][i]), field=t)
        values.append(v)
    n = next((n for n in range(1, max_n + 1) if all(abs(v * n - round(v * n)) < 1e-9 * n for v in values)), None)
    if n is None:
        raise InputError(path, f"the KS statistics are no multiples of 1/n for any n up to {max_n}",
                         row=int(df.attrs["lines"][i]))
    return pd.DataFrame([("ks_denominator", n), ("traits", len(values))], columns=["quantity", "value"])
