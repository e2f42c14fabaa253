"""Real-data run: MCS and OEG on the published CulturalPersonas release.

The release folder (``personas.release.path``) holds the 6 x 500 released
questions with their graded answers, the norms used for persona priming and
the BFI / IPIP-120 / IPIP-300 / Big5Chat baseline files.  This module selects
the items (all of them, or a seeded trait-balanced subsample per country and
instrument), runs the study's own MCS and OEG code on them
(:mod:`cultalign.personas.evaluate`) and measures the cost: wall time and the
token counts the model layer reports (scoring prompts and option
continuations; prompt and completion tokens of every generation, retries
included).
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import numpy as np
import pandas as pd

from cultalign.core.seeds import derive_seed
from cultalign.models import ModelClient

from .common import TRAITS
from .evaluate import (Priming, calibrate_items, generate_oeg, map_responses, oeg_requests, oeg_table,
                       run_mcs)
from .instruments import cp_items, load_instrument, read_items
from ..core.inputs import register_keys
from .release import RELEASE_CP_FILES, RELEASE_NORMS_FILE, release_questions, scenario_norms

CP_FILES = RELEASE_CP_FILES
NORMS_FILE = RELEASE_NORMS_FILE
CONFIG_KEY = "personas.release.path"


class ReleaseError(ValueError):
    pass


def check_release(root, codes: list[str], baseline_files: list[str]) -> Path:
    """The release folder and every file the run reads; a clear error naming the config key otherwise."""
    if not root:
        raise ReleaseError(f"config key '{CONFIG_KEY}' is not set: point it at a copy of the CulturalPersonas "
                           "release (the folder holding datasets/cp and datasets/baselines), e.g. with "
                           "--configfile config/personas-release.yaml")
    p = Path(root)
    register_keys({p: CONFIG_KEY})  # a damaged file of the release names the key (cultalign.core.inputs)
    if not p.is_dir():
        raise ReleaseError(f"{p} (set by config key '{CONFIG_KEY}') does not exist or is not a folder; "
                           "it must hold the CulturalPersonas release (datasets/cp, datasets/baselines)")
    need = [f.format(code=c) for c in codes for f in CP_FILES] + [NORMS_FILE, *baseline_files]
    missing = [f for f in need if not (p / f).is_file()]
    if missing:
        raise ReleaseError(f"{p} (set by config key '{CONFIG_KEY}') lacks {len(missing)} file(s) of the release: "
                           + ", ".join(missing))
    return p


def subsample(items: pd.DataFrame, n, seed: int, label: str) -> pd.DataFrame:
    """``n`` items (``"full"`` or None: all), trait-balanced: a seeded order within each trait,
    then traits taken in turn; rows keep their original order."""
    if n in (None, "full") or n >= len(items):
        return items.reset_index(drop=True)
    rng = np.random.default_rng(derive_seed(seed, "personas", "release", "subsample", label))
    queues = [list(rng.permutation(np.flatnonzero(items["trait"].to_numpy() == t))) for t in TRAITS]
    keep: list[int] = []
    while len(keep) < n:
        for q in queues:
            if q and len(keep) < n:
                keep.append(int(q.pop(0)))
    return items.iloc[sorted(keep)].reset_index(drop=True)


def release_items(root, country: str, code: str, n, baselines, bfi_key: str, seed: int) -> pd.DataFrame:
    """Items of one country (release file code ``code``): its released questions (instrument ``cp``) and
    every baseline (``baselines``: name -> format, file, oeg, in order; a mapping or (name, spec) pairs),
    each subsampled to ``n`` items (``full``: all); ``n_full`` = the instrument's full item count.
    Baselines are subsampled without the country in the seed: every country sees the same items."""
    blocks = []
    cp = cp_items(release_questions(root, code), f"{root} ({code})")
    blocks.append((subsample(cp, n, seed, f"cp|{country}"), len(cp), True))
    for name, spec in dict(baselines).items():
        it = load_instrument(spec["format"], Path(root) / spec["file"], name, bfi_key)
        blocks.append((subsample(it, n, seed, name), len(it), bool(spec["oeg"])))
    out = []
    for df, n_full, oeg in blocks:
        df = df.copy()
        df["n_full"] = n_full
        df["oeg"] = oeg
        out.append(df)
    items = pd.concat(out, ignore_index=True)
    items.insert(0, "country", country)
    return items


def persona_for(root, country_name: str, priming: str, n_norms: int, seed: int, country: str,
                code: str) -> Priming | None:
    """The release's persona priming of a condition (None: unprimed): ``n_norms`` norms per item drawn
    from the norms the country's released scenarios (file code ``code``; empty: the country id, matched
    without case) were built from."""
    if priming == "unprimed":
        return None
    return Priming(country_name, scenario_norms(root, code or country), n_norms, seed, country)


def _split(items: pd.DataFrame, only_oeg: bool = False):
    for name, df in items.groupby("instrument", sort=False):
        if only_oeg and not df["oeg"].astype(bool).iloc[0]:
            continue
        yield name, df.reset_index(drop=True)


def _finite_stats(x: pd.Series, prefix: str) -> dict:
    x = pd.to_numeric(x, errors="coerce")
    return {f"{prefix}_mean": float(x.mean()) if x.notna().any() else math.nan,
            f"{prefix}_min": float(x.min()) if x.notna().any() else math.nan,
            f"{prefix}_median": float(x.median()) if x.notna().any() else math.nan}


def timed(client, t0: float, load0: float) -> float:
    """Seconds since ``t0`` less the model load that happened in them (``load0``: the client's
    ``load_seconds`` at ``t0``).  The model loads lazily, on the first cache miss: a warm rerun
    never loads it, and a cold run's load is reported apart (the job record's ``load_s``)."""
    return time.perf_counter() - t0 - (client.load_seconds - load0)


def run_release_mcs(client, root, items: pd.DataFrame, country: str, country_name: str, model: str,
                    primings: list[str], score: str, normalise: str, seed: int, n_norms: int = 2, code: str = ""):
    """MCS on every instrument x priming condition of one country (``score``, ``normalise``: config
    personas.mcs).  Returns (per-item table, per-cell table)."""
    tables, cells = [], []
    for priming in primings:
        persona = persona_for(root, country_name, priming, n_norms, seed, country, code)
        for name, df in _split(items):
            t0, load0 = time.perf_counter(), client.load_seconds
            res = run_mcs(client, df, persona, score, seed, country, normalise, count_tokens=True)
            wall = timed(client, t0, load0)
            res.insert(0, "country", country)
            res.insert(1, "priming", priming)
            res.insert(2, "model", model)
            if persona is not None:
                res["priming_norms"] = persona.column(df)
            tables.append(res)
            computed = res[~res["cached"]]
            tokens = int(computed["prompt_tokens"].sum() + computed["option_tokens"].sum())
            v = res["valid"].astype(bool)
            cells.append({"model": model, "method": "mcs", "country": country, "instrument": name,
                          "priming": priming, "n_items": len(res), "n_full": int(df["n_full"].iloc[0]),
                          "valid": int(v.sum()), "invalid": int((~v).sum()), "cached": int(res["cached"].sum()),
                          "wall_s": wall, "prompt_tokens": int(res["prompt_tokens"].sum()),
                          "option_tokens": int(res["option_tokens"].sum()), "tokens_scored": tokens,
                          "tokens_scored_per_s": tokens / wall if wall > 0 and tokens else math.nan,
                          **_finite_stats(res["valid_mass"], "valid_mass")})
    return pd.concat(tables, ignore_index=True), pd.DataFrame(cells)


class GenerationMeter:
    """A ModelClient seen through a meter: every generation (retries included) is recorded with the
    prompt and completion token counts the model layer reports.  Anything else goes to the client."""

    def __init__(self, client):
        self.client = client
        self.records: list = []  # (ChatRequest, Generation)

    def generate(self, requests):
        gens = self.client.generate(requests)
        self.records.extend(zip(requests, gens))
        return gens

    def generate_parsed(self, requests, parse, max_attempts: int | None = None):
        # the client's retry loop, calling this meter's generate
        return ModelClient.generate_parsed(self, requests, parse, max_attempts=max_attempts)

    def __getattr__(self, name):
        return getattr(self.client, name)

    def totals(self, since: int = 0) -> dict:
        recs = self.records[since:]
        computed = [g for _, g in recs if not g.cached]
        return {"requests": len(recs), "requests_computed": len(computed),
                "prompt_tokens": sum(g.prompt_tokens for _, g in recs),
                "generated_tokens": sum(g.completion_tokens for _, g in recs),
                "generated_tokens_computed": sum(g.completion_tokens for g in computed),
                "prompt_tokens_computed": sum(g.prompt_tokens for g in computed),
                "truncated": sum(g.finish_reason == "length" for _, g in recs)}


def run_release_oeg(client, root, items: pd.DataFrame, country: str, country_name: str, model: str,
                    primings: list[str], sampling: dict, calibration_items: int, embed, seed: int,
                    n_norms: int = 2, code: str = "", mapping: str = "softmax"):
    """OEG on the contextual instruments x priming of one country: generation (``sampling``: config
    personas.oeg; retries for answers under three words, recorded and counted), embedding mapping
    (``mapping``: config personas.oeg_mapping; the temperature scaling, fitted on ``calibration_items``
    items per instrument, is recorded either way).  Returns (per-item, per-cell)."""
    meter = GenerationMeter(client)
    tables, cells, calibration = [], [], {}
    for priming in primings:
        persona = persona_for(root, country_name, priming, n_norms, seed, country, code)
        for name, df in _split(items, only_oeg=True):
            reqs = oeg_requests(df, persona, seed, country, sampling)
            mark = len(meter.records)
            t0, load0 = time.perf_counter(), client.load_seconds
            parsed = generate_oeg(meter, [reqs])[0]
            gen_wall = timed(client, t0, load0)
            first = dict(meter.records[mark:])
            t1 = time.perf_counter()
            if name not in calibration:  # tau depends on the instrument's options only
                cal_items = subsample(df, calibration_items, seed, f"calibration|{name}|{country}")
                calibration[name] = calibrate_items(cal_items, embed)
            cal = calibration[name]
            mapped = map_responses(oeg_table(df, parsed), embed, cal["tau"], mapping)
            map_wall = time.perf_counter() - t1
            mapped["prompt_tokens"] = [first[r].prompt_tokens for r in reqs]
            mapped["completion_tokens_first"] = [first[r].completion_tokens for r in reqs]
            mapped["attempts_raw"] = [json.dumps(p.attempts, ensure_ascii=False) for p in parsed]
            for k in ("n_probes", "loglik_tau1", "loglik_fit", "acc"):
                mapped[f"calibration_{k}"] = cal[k]
            mapped.insert(0, "country", country)
            mapped.insert(1, "priming", priming)
            mapped.insert(2, "model", model)
            if persona is not None:
                mapped["priming_norms"] = persona.column(df)
            tables.append(mapped)
            t = meter.totals(mark)
            v = mapped["valid"].astype(bool)
            cells.append({"model": model, "method": "oeg", "country": country, "instrument": name,
                          "priming": priming, "n_items": len(mapped), "n_full": int(df["n_full"].iloc[0]),
                          "valid": int(v.sum()), "invalid": int((~v).sum()),
                          "retried": int((mapped["attempts"] > 1).sum()),
                          "cached": t["requests"] - t["requests_computed"],
                          "wall_s": gen_wall + map_wall, "generation_s": gen_wall, "mapping_s": map_wall,
                          "requests": t["requests"], "prompt_tokens": t["prompt_tokens"],
                          "generated_tokens": t["generated_tokens"], "truncated": t["truncated"],
                          # after keeping at most two sentences: answers still cut mid-sentence, and
                          # answers whose text after the second sentence was dropped
                          "unfinished": int((v & ~mapped["complete"].astype(bool)).sum()),
                          "trimmed": int((v & mapped["trimmed"].astype(bool)).sum()),
                          "generated_tokens_per_s": (t["generated_tokens_computed"] / gen_wall
                                                     if gen_wall > 0 and t["generated_tokens_computed"] else math.nan),
                          "mapping": mapping, "tau": cal["tau"], "calibration_acc": cal["acc"],
                          **_finite_stats(mapped["max_prob"], "max_prob")})
    if not tables:
        return pd.DataFrame(), pd.DataFrame()
    return pd.concat(tables, ignore_index=True), pd.DataFrame(cells)


# -- rule jobs (thin scripts call these) --------------------------------------
def job_record(kind: str, client, t_start: float, subsample_n, primings: list[str], **extra) -> dict:
    """The run record of a release job (``<country>.job.json``): wall time, model load (0 when every
    request was cached: the weights were never loaded), client counters."""
    return {"method": kind, "wall_s": time.perf_counter() - t_start, "load_s": client.load_seconds,
            "client_stats": client.stats,
            "subsample": subsample_n, "priming": primings, **extra}


def item_counts(items: pd.DataFrame) -> dict[str, int]:
    """Items per instrument, in table order."""
    return {f"{i}": int(n) for i, n in items.groupby("instrument", sort=False).size().items()}


def write_json(path, record: dict) -> None:
    Path(path).write_text(json.dumps(record, indent=2))


def release_mcs(client, release, items_path, country: str, country_name: str, model: str, primings: list[str],
                score: str, normalise: str, subsample_n, seed: int, n_norms: int = 2, code: str = ""):
    """The MCS job of one model x country: (per-item table, per-cell table, job record, sidecar counts)."""
    t_start = time.perf_counter()
    table, cells = run_release_mcs(client, release, read_items(items_path), country, country_name, model, primings,
                                   score, normalise, seed, n_norms, code)
    record = job_record("mcs", client, t_start, subsample_n, primings, priming_n_norms=n_norms)
    counts = {"rows": len(table), "valid": int(table["valid"].sum()), "invalid": int((~table["valid"]).sum()),
              "mean_valid_mass": float(table["valid_mass"].mean())}
    return table, cells, record, counts


def release_oeg(client, release, items_path, country: str, country_name: str, model: str, primings: list[str],
                sampling: dict, calibration_items: int, embedding_model: str, subsample_n, seed: int,
                n_norms: int = 2, code: str = "", mapping: str = "softmax"):
    """The OEG job of one model x country: (per-item table, per-cell table, job record, sidecar counts)."""
    from cultalign.retrieval import embeddings_for

    t_start = time.perf_counter()
    embed = embeddings_for(embedding_model).embed_documents
    table, cells = run_release_oeg(client, release, read_items(items_path), country, country_name, model, primings,
                                   sampling, calibration_items, embed, seed, n_norms, code, mapping)
    record = job_record("oeg", client, t_start, subsample_n, primings, oeg=sampling, priming_n_norms=n_norms,
                        mapping=mapping)
    v = table["valid"].astype(bool) if len(table) else pd.Series([], dtype=bool)
    counts = {"rows": len(table), "valid": int(v.sum()), "invalid": int((~v).sum())}
    return table, cells, record, counts
