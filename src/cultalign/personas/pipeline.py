"""The MCS and OEG jobs of the evaluation: one model x country, every instrument x priming condition.

Each job returns, per (instrument, priming), the per-item table, the sampled trait scores and
what their provenance sidecars record; the rule scripts write them (``Job.write_table``).
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, field

import pandas as pd

from cultalign.core.seeds import derive_seed
from cultalign.core.tables import read_tsv

from .common import TRAITS
from .evaluate import Priming, calibrate_items, map_responses, run_mcs, sample_trait_scores
from .instruments import read_items

log = logging.getLogger(__name__)


@dataclass
class EvalOutput:
    """One (instrument, priming) cell of a job: its tables and what their sidecars record."""

    instrument: str
    priming: str
    table: pd.DataFrame  # MCS: option probabilities per item; OEG: responses per item
    samples: pd.DataFrame  # simulated respondents' trait scores
    seed: int
    counts: dict
    extra: dict = field(default_factory=dict)


def valid_counts(df: pd.DataFrame) -> dict:
    v = df["valid"].astype(bool) if len(df) else pd.Series([], dtype=bool)
    return {"rows": int(len(df)), "valid": int(v.sum()), "invalid": int((~v).sum())}


def human_n(human_path, country: str, max_samples: int | None) -> int:
    """Simulated respondents of a country: its complete human records, capped at ``max_samples``."""
    h = pd.read_csv(human_path, sep="\t")
    n = int(h[h["country"] == country][list(TRAITS)].notna().all(axis=1).sum())
    if n == 0:
        raise ValueError(f"{human_path}: no complete human records for country {country!r}")
    return min(n, max_samples) if max_samples else n


def persona(norms_source, country_name: str, priming: str, priming_norms: str, n_norms: int, seed: int,
            country: str, release_code: str = "") -> Priming | None:
    """The persona priming of a condition (None: unprimed): ``n_norms`` norms drawn per item from the
    country's norms; ``priming_norms``: ``generated`` (the norms table at ``norms_source``) or
    ``release`` (the release folder at ``norms_source``: the norms its scenarios of file code
    ``release_code`` were built from)."""
    if priming == "unprimed":
        return None
    if priming_norms == "release":
        from .release import release_root, scenario_norms

        if not release_code:
            raise ValueError(f"priming_norms 'release' needs the country's release_code (config key "
                             f"personas.countries.{country}.release_code)")
        norms = scenario_norms(release_root(norms_source), release_code)
    else:
        t = read_tsv(norms_source)
        norms = list(t[t["valid"].astype(bool) & (t["norm"] != "")]["norm"])
    return Priming(country_name, norms, n_norms, seed, country)


def priming_extra(p: Priming | None, items: pd.DataFrame, res: pd.DataFrame) -> dict:
    """Adds the per-item norms column to ``res`` (primed) and returns what the sidecar records."""
    if p is None:
        return {"persona": None, "priming_norms": None}
    res["priming_norms"] = p.column(items)
    return {"persona": p.template_example(), "priming_norms": p.record()}


def _tables_of(item_tables: list[str], jobs) -> dict[str, str]:
    """instrument -> item table; ``item_tables`` in the order the instruments first appear in ``jobs``."""
    instruments = list(dict.fromkeys(i for i, _ in jobs))
    if len(instruments) != len(item_tables):
        raise ValueError(f"{len(item_tables)} item tables for the instruments {instruments}")
    return dict(zip(instruments, item_tables))


def mcs_job(client, item_tables: list[str], jobs: list[tuple[str, str]], *, norms, human, country: str,
            country_name: str, model: str, priming_norms: str, score: str, normalise: str,
            max_samples: int | None, seed: int, n_norms: int = 2, release_code: str = "") -> list[EvalOutput]:
    """MCS for every (instrument, priming) of ``jobs``; ``item_tables`` in the order the instruments
    first appear in ``jobs``; ``norms``: the persona norms (table or release, per ``priming_norms``);
    ``human``: the human trait scores."""
    tables = _tables_of(item_tables, jobs)
    out = []
    for instrument, priming in jobs:
        items = read_items(tables[instrument])
        priming_of = persona(norms, country_name, priming, priming_norms, n_norms, seed, country, release_code)
        res = run_mcs(client, items, priming_of, score, seed, country, normalise)
        primed = priming_extra(priming_of, items, res)
        res.insert(0, "country", country)
        res.insert(1, "priming", priming)
        n = human_n(human, country, max_samples)
        s_seed = derive_seed(seed, "personas", "eval", "mcs_samples", model, instrument, country, priming)
        samples = sample_trait_scores(res, n, s_seed) if len(res) else pd.DataFrame(columns=["sample", *TRAITS])
        counts = {**valid_counts(res), "mean_valid_mass": float(res["valid_mass"].mean()) if len(res) else math.nan,
                  "n_samples": n}
        out.append(EvalOutput(instrument, priming, res, samples, s_seed, counts,
                              {**primed,
                               "mcs": {"score": score, "normalise": normalise, "max_samples": max_samples,
                                       "scoring": client.scoring}}))
        log.info("mcs %s %s %s: %s (client %s)", country, instrument, priming, counts, client.stats)
    return out


def oeg_job(client, item_tables: list[str], jobs: list[tuple[str, str]], *, norms, human, country: str,
            country_name: str, model: str, priming_norms: str, sampling: dict, embedding_model: str,
            max_samples: int | None, seed: int, n_norms: int = 2, release_code: str = "",
            mapping: str = "softmax") -> list[EvalOutput]:
    """OEG for every (instrument, priming) of ``jobs``: all generations in one batched call, then per
    cell the embedding mapping (``embedding_model``; ``mapping``: config personas.oeg_mapping) and
    sampling.  ``sampling``: config personas.oeg."""
    from cultalign.retrieval import embeddings_for

    from .evaluate import generate_oeg, oeg_requests, oeg_table

    tables = _tables_of(item_tables, jobs)
    prepared = []
    for instrument, priming in jobs:
        items = read_items(tables[instrument])
        priming_of = persona(norms, country_name, priming, priming_norms, n_norms, seed, country, release_code)
        reqs = oeg_requests(items, priming_of, seed, country, sampling)
        prepared.append((instrument, priming, items, priming_of, reqs))
    parsed = generate_oeg(client, [p[-1] for p in prepared])
    emb = embeddings_for(embedding_model).embed_documents
    calibration: dict[str, dict] = {}
    out = []
    log.info("oeg %s: mapping the answers of %d cells (instrument x priming) with %s", country, len(prepared),
             embedding_model)
    for k, ((instrument, priming, items, priming_of, _), res) in enumerate(zip(prepared, parsed), 1):
        if instrument not in calibration:  # tau depends on the instrument's options only
            calibration[instrument] = calibrate_items(items, emb)
        cal = calibration[instrument]
        mapped = map_responses(oeg_table(items, res), emb, cal["tau"], mapping)
        mapped.insert(0, "country", country)
        mapped.insert(1, "priming", priming)
        primed = priming_extra(priming_of, items, mapped)
        for key in ("n_probes", "loglik_tau1", "loglik_fit", "acc"):
            mapped[f"calibration_{key}"] = cal[key]
        n = human_n(human, country, max_samples)
        s_seed = derive_seed(seed, "personas", "eval", "oeg_samples", model, instrument, country, priming)
        ok = mapped[mapped["valid"].astype(bool)]
        samples = sample_trait_scores(ok, n, s_seed) if len(ok) else pd.DataFrame(columns=["sample", *TRAITS])
        counts = {**valid_counts(mapped), "n_samples": n, "tau": cal["tau"]}
        out.append(EvalOutput(instrument, priming, mapped, samples, s_seed, counts,
                              {**primed, "oeg": sampling, "mapping": mapping,
                               "calibration": cal}))
        log.info("oeg cell %d/%d, %s %s %s: %s", k, len(prepared), country, instrument, priming, counts)
    return out
