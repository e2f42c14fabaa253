"""Glue between rule scripts and the study logic (kept out of the scripts so it is testable)."""

from __future__ import annotations

import hashlib
import json
import logging
import math
from pathlib import Path

import pandas as pd

from cultalign.provenance import write_sidecar

from .common import TRAITS, derive_seed, template_hashes
from .evaluate import EVAL_TEMPLATES, calibrate_items, map_responses, persona_prompt, run_mcs, sample_trait_scores
from .generate import GenSettings
from .human import JohnsonLayout, keying_check, load_key, read_johnson, score_domains

log = logging.getLogger(__name__)


def gen_settings(cfg: dict, config: dict) -> GenSettings:
    g = cfg["generation"]
    return GenSettings(temperature=g["temperature"], max_new_tokens=g["max_new_tokens"],
                       max_regenerations=g["max_regenerations"], threshold=g["check_threshold"],
                       max_attempts=config["retry"]["max_attempts"], max_chars=g.get("max_chars"))


def valid_counts(df: pd.DataFrame) -> dict:
    v = df["valid"].astype(bool) if len(df) else pd.Series([], dtype=bool)
    return {"rows": int(len(df)), "valid": int(v.sum()), "invalid": int((~v).sum())}


def write_table(df, path, what, config, client=None, templates=None, **extra_counts):
    df.to_csv(path, sep="\t", index=False)
    counts = valid_counts(df)
    if "check_passed" in df.columns and len(df):
        counts["check_passed"] = int(df["check_passed"].astype(bool).sum())
        counts["regenerated"] = int((df["regenerations"] > 0).sum())
    counts.update(extra_counts)
    write_sidecar(path, config=config, client=client, seed=config["seed"], prompt_templates=templates, counts=counts)
    log.info("%s: %s", what, counts)


def limit_items(items: pd.DataFrame, per_trait: int | None) -> pd.DataFrame:
    if not per_trait:
        return items
    return items.groupby("trait", group_keys=False, sort=False).head(per_trait).reset_index(drop=True)


def cp_items_for(inputs, cfg, country):
    from .instruments import cp_items
    from .release import release_questions

    if "release" in inputs.keys():
        code = cfg["countries"][country]["release_code"]
        q = release_questions(inputs.release, code)
        src = f"{inputs.release} ({code})"
    else:
        q = pd.read_csv(inputs.questions, sep="\t", keep_default_na=False)
        src = inputs.questions
    return limit_items(cp_items(q, src), cfg["cp_max_items"]), src


def run_audit(release, cfg, countries, external, findings_path, summary_path, config):
    from cultalign.retrieval import embeddings_for

    from .audit import audit_release, summarise

    names = {c: cfg["countries"][c]["name"].replace("the ", "") for c in countries}
    codes = {c: cfg["countries"][c]["release_code"] for c in countries}
    a = cfg["audit"]
    if external:
        expect = {"norms": a["expect_norms"], "scenarios": a["expect_scenarios"], "questions": a["expect_questions"],
                  "answers": a["expect_questions"], "scenarios_per_norm": (a["expect_scenarios"] or 0) // max(a["expect_norms"] or 1, 1)}
        keys = {"ipip120": cfg["release"]["ipip120_key"], "ipip300": cfg["release"]["ipip300_key"]}
    else:
        g = cfg["generation"]
        expect = {"norms": g["n_norms"], "scenarios_per_norm": g["n_scenarios"]}
        keys = {}
    emb = embeddings_for(cfg["corpus"]["embedding_model"])
    findings = audit_release(release, names, codes, expect, a["near_duplicate_jaccard"], emb.embed_documents,
                             {k: Path(v) for k, v in keys.items() if v})
    findings.to_csv(findings_path, sep="\t", index=False)
    summary = summarise(findings)
    summary.to_csv(summary_path, sep="\t", index=False)
    for p in (findings_path, summary_path):
        write_sidecar(p, config=config, counts={"findings": len(findings)}, extra={"release": str(release)})
    log.info("audit of %s: %d findings\n%s", release, len(findings), summary.to_string())


def human_scores(raw, key_path, cfg, form, scores_path, counts_path, config):
    key = load_key(key_path)
    layout = JohnsonLayout.for_form(form, cfg["human"]["country_width"].get(form))
    if len(key) != layout.n_items:
        raise ValueError(f"{key_path}: {len(key)} items, but the {form} file has {layout.n_items}")
    stored_reversed = cfg["human"]["stored_reversed"]
    fields = {c: v["johnson"] for c, v in cfg["countries"].items() if v.get("johnson")}
    recs, stats = read_johnson(raw, layout, fields)
    keying = keying_check(recs, key, stored_reversed)
    if keying["consistent"] is False:
        raise ValueError(f"{raw}: minus-keyed items correlate negatively with their domain's plus-keyed items "
                         f"(median r = {keying['median_r_minus_vs_plus']:.2f}) under human.stored_reversed="
                         f"{stored_reversed}: this file stores them the other way; set human.stored_reversed: "
                         f"{not stored_reversed}")
    scores = score_domains(recs, key, stored_reversed)
    scores.to_csv(scores_path, sep="\t", index=False)
    synthetic = "SYNTHETIC" in Path(raw).name
    rows = []
    for c, v in cfg["countries"].items():
        s = scores[scores["country"] == c]
        complete = int(s[list(TRAITS)].notna().all(axis=1).sum())
        rows.append({"country": c, "johnson_field": v.get("johnson", "")[: layout.country_width], "form": form,
                     "records": len(s),
                     "complete_records": complete, "paper_n": v.get("paper_n"),
                     "matches_paper": (len(s) == v.get("paper_n")) if not synthetic else False,
                     "data": "SYNTHETIC (demo)" if synthetic else "Johnson IPIP-NEO"})
    counts = pd.DataFrame(rows)
    counts.to_csv(counts_path, sep="\t", index=False)
    for p in (scores_path, counts_path):
        write_sidecar(p, config=config, counts={"lines": stats["lines"], "malformed": stats["malformed"],
                                                "records_kept": len(recs), **keying},
                      extra={"raw_file": str(raw), "synthetic": synthetic, "key": str(key_path)})
    log.info("%s: %s", form, counts.to_string())


def _human_n(human_path, country, cfg) -> int:
    h = pd.read_csv(human_path, sep="\t")
    n = int(h[h["country"] == country][list(TRAITS)].notna().all(axis=1).sum())
    cap = cfg["mcs"]["max_samples"]
    if n == 0:
        raise ValueError(f"{human_path}: no complete human records for country {country!r}")
    return min(n, cap) if cap else n


def _persona(inputs, cfg, country, priming):
    if priming == "unprimed":
        return None, []
    name = cfg["countries"][country]["name"]
    if cfg["priming_norms"] == "release":
        from .release import release_norms

        norms = release_norms(inputs.norms, name)
    else:
        t = pd.read_csv(inputs.norms, sep="\t", keep_default_na=False)
        norms = list(t[t["valid"].astype(bool) & (t["norm"] != "")]["norm"])
    return persona_prompt(name, norms), norms[:2]


class _Job:
    def __init__(self, wc, instrument, priming):
        self.model, self.country, self.instrument, self.priming = wc.model, wc.country, instrument, priming


def run_mcs_rule(client, inputs, item_table, wc, instrument, priming, cfg, seed, items_out, samples_out, config):
    wc = _Job(wc, instrument, priming)
    items = pd.read_csv(item_table, sep="\t", dtype={"item_id": str}, keep_default_na=False)
    persona, norms = _persona(inputs, cfg, wc.country, wc.priming)
    res = run_mcs(client, items, persona, cfg["mcs"]["score"], seed, wc.country, cfg["mcs"]["normalise"])
    res.insert(0, "country", wc.country)
    res.insert(1, "priming", wc.priming)
    res.to_csv(items_out, sep="\t", index=False)
    n = _human_n(inputs["human"], wc.country, cfg)
    s_seed = derive_seed(seed, "mcs_samples", wc.model, wc.instrument, wc.country, wc.priming)
    samples = sample_trait_scores(res, n, s_seed) if len(res) else pd.DataFrame(columns=["sample", *TRAITS])
    samples.to_csv(samples_out, sep="\t", index=False)
    counts = {**valid_counts(res), "mean_valid_mass": float(res["valid_mass"].mean()) if len(res) else math.nan,
              "n_samples": n}
    for p in (items_out, samples_out):
        write_sidecar(p, config=config, client=client, seed=s_seed, prompt_templates=template_hashes(EVAL_TEMPLATES),
                      counts=counts, extra={"persona": persona, "priming_norms": norms, "mcs": cfg["mcs"]})
    log.info("mcs %s %s %s: %s (client %s)", wc.country, wc.instrument, wc.priming, counts, client.stats)


def run_oeg_rule(client, inputs, item_tables, wc, jobs, cfg, seed, responses_outs, samples_outs, config):
    """OEG for every (instrument, priming) job of one model x country: all generations in one
    batched call, then per job the embedding mapping, sampling and outputs."""
    from cultalign.retrieval import embeddings_for

    from .evaluate import generate_oeg, oeg_requests, oeg_table

    o = cfg["oeg"]
    prepared = []
    for instrument, priming in jobs:
        items = pd.read_csv(item_tables[instrument], sep="\t", dtype={"item_id": str}, keep_default_na=False)
        persona, norms = _persona(inputs, cfg, wc.country, priming)
        reqs = oeg_requests(items, persona, seed, wc.country, o["temperature"], o["max_new_tokens"])
        prepared.append((instrument, priming, items, persona, norms, reqs))
    parsed = generate_oeg(client, [p[-1] for p in prepared], config["retry"]["max_attempts"])
    emb = embeddings_for(cfg["corpus"]["embedding_model"]).embed_documents
    calibration = {}
    for (instrument, priming, items, persona, norms, _), res, resp_out, samples_out in zip(
            prepared, parsed, responses_outs, samples_outs):
        job = _Job(wc, instrument, priming)
        if instrument not in calibration:  # tau depends on the instrument's options only
            calibration[instrument] = calibrate_items(items, emb)
        cal = calibration[instrument]
        mapped = map_responses(oeg_table(items, res), emb, cal["tau"])
        mapped.insert(0, "country", job.country)
        mapped.insert(1, "priming", job.priming)
        for k in ("n_probes", "loglik_tau1", "loglik_fit", "acc"):
            mapped[f"calibration_{k}"] = cal[k]
        mapped.to_csv(resp_out, sep="\t", index=False)
        n = _human_n(inputs["human"], job.country, cfg)
        s_seed = derive_seed(seed, "oeg_samples", job.model, job.instrument, job.country, job.priming)
        ok = mapped[mapped["valid"].astype(bool)]
        samples = sample_trait_scores(ok, n, s_seed) if len(ok) else pd.DataFrame(columns=["sample", *TRAITS])
        samples.to_csv(samples_out, sep="\t", index=False)
        counts = {**valid_counts(mapped), "n_samples": n, "tau": cal["tau"]}
        for p in (resp_out, samples_out):
            write_sidecar(p, config=config, client=client, seed=s_seed, prompt_templates=template_hashes(EVAL_TEMPLATES),
                          counts=counts, extra={"persona": persona, "priming_norms": norms, "oeg": o,
                                                "calibration": cal})
        log.info("oeg %s %s %s: %s", job.country, instrument, priming, counts)
