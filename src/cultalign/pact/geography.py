"""Country relations (same / close / far) and analysis regions.

Geographic method (documented, deterministic given the seed):

* countries are resolved with ``country_converter`` (coco) to ISO3, UN M49
  sub-region (``UNregion``) and continent;
* **same**: the actor's country is the receiver's country;
* **close**: a different UN member country in the receiver's UN M49
  sub-region (e.g. Western Africa, South-eastern Asia); when the sub-region
  has no other member, a different country of the same continent;
* **far**: a UN member country on a different continent;
* the candidate is drawn with a NumPy generator seeded by (master seed,
  scenario id, relation) through ``core.seeds.derive_seed``, so a rerun picks
  the same actor country.

Analysis regions (figure 5C) group UN sub-regions into the eight bins of the
paper's site data; Australia/New Zealand count as Western/Anglophone
(``N. Am./W. Eur.``) and Iran as MENA (the paper groups by culture area).
"""

from __future__ import annotations

import logging
from functools import lru_cache

import numpy as np
import pandas as pd

from ..core.seeds import derive_seed

RELATIONS = ("same", "close", "far")

REGION_OF_SUBREGION = {
    "Northern America": "N. Am./W. Eur.", "Western Europe": "N. Am./W. Eur.",
    "Northern Europe": "N. Am./W. Eur.", "Southern Europe": "N. Am./W. Eur.",
    "Australia and New Zealand": "N. Am./W. Eur.",
    "Caribbean": "Lat. Am./Carib.", "Central America": "Lat. Am./Carib.", "South America": "Lat. Am./Carib.",
    "Eastern Europe": "E. Eur./C. Asia", "Central Asia": "E. Eur./C. Asia",
    "Northern Africa": "MENA", "Western Asia": "MENA",
    "Eastern Africa": "Sub-Saharan", "Middle Africa": "Sub-Saharan", "Southern Africa": "Sub-Saharan",
    "Western Africa": "Sub-Saharan",
    "Southern Asia": "South Asia",
    "Eastern Asia": "E/SE Asia", "South-eastern Asia": "E/SE Asia",
    "Melanesia": "Pacific", "Micronesia": "Pacific", "Polynesia": "Pacific",
}
REGION_OVERRIDES = {"IRN": "MENA"}
REGIONS = ("N. Am./W. Eur.", "Lat. Am./Carib.", "E. Eur./C. Asia", "Sub-Saharan", "MENA", "South Asia",
           "E/SE Asia", "Pacific")


class UnknownCountry(ValueError):
    pass


@lru_cache(maxsize=1)
def _converter():
    import country_converter as coco

    logging.getLogger("country_converter").setLevel(logging.ERROR)
    return coco.CountryConverter()


@lru_cache(maxsize=1)
def _table() -> pd.DataFrame:
    d = _converter().data
    d = d[d["UNmember"].notna() & (d["UNregion"] != "Antarctica")]
    t = d[["ISO3", "name_short", "UNregion", "continent"]].drop_duplicates("ISO3").set_index("ISO3")
    t["region"] = [REGION_OVERRIDES.get(i, REGION_OF_SUBREGION.get(r, "Other")) for i, r in zip(t.index, t.UNregion)]
    return t


@lru_cache(maxsize=4096)
def iso3(name: str) -> str:
    code = _converter().convert(str(name).replace("_", " "), to="ISO3", not_found=None)
    if code is None or isinstance(code, list):
        raise UnknownCountry(f"country {name!r} is not recognised by country_converter")
    return code


@lru_cache(maxsize=4096)
def country_info(name: str) -> dict:
    code = iso3(name)
    t = _table()
    if code not in t.index:
        row = _converter().data.set_index("ISO3").loc[code]
        return {"iso3": code, "name": row["name_short"], "subregion": row["UNregion"],
                "continent": row["continent"],
                "region": REGION_OVERRIDES.get(code, REGION_OF_SUBREGION.get(row["UNregion"], "Other"))}
    r = t.loc[code]
    return {"iso3": code, "name": r["name_short"], "subregion": r["UNregion"], "continent": r["continent"],
            "region": r["region"]}


def candidates(receiver: str, relation: str) -> list[str]:
    """ISO3 codes of possible actor countries for ``relation`` to ``receiver``."""
    return list(_candidates(country_info(receiver)["iso3"], relation))


@lru_cache(maxsize=4096)
def _candidates(code: str, relation: str) -> tuple[str, ...]:
    info = country_info(code)
    t = _table()
    if relation == "same":
        return (info["iso3"],)
    others = t[t.index != info["iso3"]]
    if relation == "close":
        c = others[others.UNregion == info["subregion"]]
        if c.empty:
            c = others[others.continent == info["continent"]]
        return tuple(sorted(c.index))
    if relation == "far":
        return tuple(sorted(others[others.continent != info["continent"]].index))
    raise ValueError(f"unknown relation {relation!r}; expected one of {RELATIONS}")


def actor_country(receiver: str, relation: str, seed: int, key: str) -> str:
    """The actor's country (display name) for ``relation`` to the receiver country."""
    if relation == "same":
        return country_info(receiver)["name"]
    cands = candidates(receiver, relation)
    if not cands:
        raise UnknownCountry(f"no {relation} country candidates for {receiver!r}")
    rng = np.random.default_rng(derive_seed(seed, "pact", "construct", "actor", key, relation))
    pick = cands[int(rng.integers(len(cands)))]
    return _table().loc[pick, "name_short"]


def relation_of(a: str, b: str) -> str:
    """Relation of country ``a`` to ``b``: same; close (same continent; the expansion
    draws close actors from the same UN sub-region, a subset of this); far (other continent)."""
    ia, ib = country_info(a), country_info(b)
    if ia["iso3"] == ib["iso3"]:
        return "same"
    return "close" if ia["continent"] == ib["continent"] else "far"


def region_of(name: str) -> str:
    return country_info(name)["region"]
