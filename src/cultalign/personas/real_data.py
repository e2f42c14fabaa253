"""CulturalPersonas' model-free table from a real input, for the real-data claims
(``config/real-data.yaml``, rule ``real_data_personas_release`` in ``rules/personas/real_data.smk``).

:func:`personas_release_counts`: counts of the CulturalPersonas release (``personas.release.path``):
questions per country and trait, scenarios and norms per country, and the items per trait of its
baseline instruments (Table 5), as rows that claims in ``config/claims.yaml`` select.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..core.inputs import read_table


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
