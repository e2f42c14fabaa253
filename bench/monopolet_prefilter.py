"""Benchmark of the monopolet matching prefilter (figures, not a timed test).

    .venv/bin/python bench/monopolet_prefilter.py [--out bench/out/monopolet_prefilter.json]

The paper's LLM judge costs one request per candidate/reference solution
pair.  The embedding prefilter (cultalign.monopolet.matching.prefilter) only
sends a pair to the judge when the two actions are similar enough
(cosine >= min_similarity) or the reference is among the candidate's top_k.

Part A, judge (real model, the configured judge and settings, a fresh request
cache for each arm so that both arms are cold):
  pairs = the demo run's solutions (results/monopolet/solutions/, when the
  workflow has made them) + a SYNTHETIC set written here (Danish dilemmas,
  each with reference actions, paraphrases of some of them and unrelated
  actions as candidates);
  * exhaustive: every pair judged; * prefiltered: only the kept pairs
  (both arms with the identical-action rule of the configured judge: identical
  actions match without a judge call);
  reported: judge calls, wall time, and the recall of the exhaustive
  matches (M = 1) that the prefilter keeps.
Part B, prefilter only (embeddings, no judge) on a larger SYNTHETIC set of
pairs built by sampling the same actions: for a grid of settings, the
fraction of pairs sent to the judge and the recall of the designed
paraphrase pairs.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import common
import pandas as pd
import yaml

common.prepare_env()
ROOT = common.ROOT

# SYNTHETIC: (dilemma, [(reference action, candidate paraphrase), ...], [unrelated candidate actions])
SYNTHETIC = [
    ("Naboen spiller høj musik hver aften, og børnene kan ikke sove.",
     [("Tal med naboen om musikken", "Tag en snak med naboen om larmen"),
      ("Skriv en venlig seddel til naboen", "Læg en høflig besked i naboens postkasse"),
      ("Kontakt boligforeningen", "Klag til boligselskabet")],
     ["Køb ørepropper til børnene", "Flyt børnenes seng til et andet værelse"]),
    ("Svigermor kommer uanmeldt på besøg hver søndag.",
     [("Bed din kæreste om at tale med sin mor", "Få din partner til at snakke med svigermor"),
      ("Aftal faste besøgsdage med svigermor", "Lav en fast aftale om hvornår hun kommer"),
      ("Sig direkte til svigermor at I har brug for tid alene",
       "Fortæl svigermor ærligt at I vil være alene om søndagen")],
     ["Tag på weekendtur hver søndag", "Lås døren og lad som om I ikke er hjemme"]),
    ("En kollega låner cyklen uden at spørge og efterlod den med fladt dæk.",
     [("Sig det roligt og direkte til kollegaen", "Tal stille og roligt med kollegaen om det"),
      ("Bed kollegaen om at betale for reparationen", "Få kollegaen til at betale for at lappe dækket"),
      ("Køb en cykellås", "Lås cyklen fast fremover")],
     ["Skriv om det i den fælles chat", "Tag kollegaens cykel som hævn"]),
    ("Min bedste ven har glemt min fødselsdag tre år i træk.",
     [("Fortæl vennen at du blev ked af det", "Sig til din ven at det gjorde dig trist"),
      ("Mind vennen om datoen i god tid", "Send vennen en påmindelse før fødselsdagen"),
      ("Tilgiv vennen og gå videre", "Lad det ligge og tilgiv din ven")],
     ["Glem også vennens fødselsdag", "Afbryd venskabet med det samme"]),
    ("Min søster vil låne mange penge af mig igen.",
     [("Sig nej til lånet", "Afvis at låne hende pengene"),
      ("Lav en skriftlig aftale om tilbagebetaling", "Skriv en kontrakt om hvordan pengene betales tilbage"),
      ("Spørg hvad pengene skal bruges til", "Find ud af hvad hun vil bruge pengene på")],
     ["Giv hende pengene som gave", "Fortæl resten af familien om det"]),
    ("Min chef skriver til mig sent om aftenen og forventer svar.",
     [("Tal med chefen om forventningerne", "Tag en samtale med din chef om hvad der forventes"),
      ("Slå arbejdsmailen fra om aftenen", "Sluk for notifikationer fra arbejdet efter fyraften"),
      ("Kontakt din tillidsrepræsentant", "Søg råd hos tillidsmanden")],
     ["Find et nyt job", "Svar med det samme hver gang"]),
    ("Min kæreste bruger for meget tid på sin telefon når vi spiser.",
     [("Foreslå telefonfri måltider", "Aftal at telefonerne ligger væk under maden"),
      ("Fortæl kæresten hvordan det får dig til at føle", "Sig til din kæreste at du føler dig overset"),
      ("Læg selv din telefon væk", "Gå selv foran og læg mobilen fra dig")],
     ["Gem kærestens telefon", "Spis alene fremover"]),
    ("En ven skylder mig 500 kroner og nævner det aldrig.",
     [("Mind vennen venligt om pengene", "Spørg høfligt om du kan få dine penge igen"),
      ("Send en MobilePay-anmodning", "Anmod om beløbet via MobilePay"),
      ("Glem pengene for venskabets skyld", "Lad pengene være og bevar venskabet")],
     ["Fortæl fælles venner at han ikke betaler", "Lån aldrig penge ud igen til nogen"]),
    ("Min teenagesøn vil ikke hjælpe med opvasken.",
     [("Lav en fast plan for pligterne", "Aftal et skema for hvem der tager opvasken"),
      ("Giv lommepenge for hjælpen", "Betal ham for at tage opvasken"),
      ("Tal med sønnen om at hjælpe til", "Tag en snak med din søn om at bidrage derhjemme")],
     ["Tag selv opvasken hver dag", "Køb en opvaskemaskine mere"]),
    ("Min nabo parkerer altid foran min indkørsel.",
     [("Bank på og tal med naboen", "Gå over og snak med naboen om parkeringen"),
      ("Sæt et skilt op ved indkørslen", "Opsæt et parkering forbudt skilt"),
      ("Ring til kommunen", "Kontakt kommunens parkeringskontrol")],
     ["Parker selv foran naboens hus", "Punkter naboens dæk"]),
]


def synthetic_tables():
    """Candidate and reference solutions of the SYNTHETIC dilemmas (2 paraphrases + 1 distractor per dilemma)."""
    cand, ref, dilemmas, designed = [], [], {}, set()
    for k, (dilemma, pairs, distractors) in enumerate(SYNTHETIC):
        did = f"synthetic_{k:02d}"
        dilemmas[did] = dilemma
        for j, (r, _) in enumerate(pairs):
            ref.append({"dilemma_id": did, "solution": j, "action": r, "stance": "advised"})
        for j, (_, c) in enumerate(pairs[:2]):
            cand.append({"dilemma_id": did, "solution": j, "action": c, "stance": "advised"})
            designed.add((did, j, j))
        cand.append({"dilemma_id": did, "solution": 2, "action": distractors[0], "stance": "advised"})
    return pd.DataFrame(cand), pd.DataFrame(ref), dilemmas, designed


def large_synthetic(n_dilemmas: int, seed: int = 0):
    """Many SYNTHETIC pair sets sampled from the same actions (designed labels only)."""
    rng = random.Random(seed)
    cand, ref, designed = [], [], set()
    for k in range(n_dilemmas):
        dilemma, pairs, distractors = SYNTHETIC[rng.randrange(len(SYNTHETIC))]
        did = f"large_{k:04d}"
        order = rng.sample(range(len(pairs)), len(pairs))
        n_par = rng.randint(0, len(pairs))
        for j, i in enumerate(order):
            ref.append({"dilemma_id": did, "solution": j, "action": pairs[i][0], "stance": "advised"})
        cj = 0
        for j, i in enumerate(order[:n_par]):
            cand.append({"dilemma_id": did, "solution": cj, "action": pairs[i][1], "stance": "advised"})
            designed.add((did, cj, j))
            cj += 1
        for d in rng.sample(distractors, rng.randint(1, len(distractors))):
            cand.append({"dilemma_id": did, "solution": cj, "action": d, "stance": "advised"})
            cj += 1
    return pd.DataFrame(cand), pd.DataFrame(ref), designed


def demo_tables(cfg):
    """The demo run's model-vs-panel solutions, when the workflow has made them."""
    from cultalign.core.tables import read_tsv
    from cultalign.monopolet.solutions_io import explode

    sol = ROOT / "results" / "monopolet" / "solutions"
    model = cfg["monopolet"]["answer_models"][0]
    dil = ROOT / "results" / "monopolet" / "dilemmas" / "dilemmas.tsv"
    if not ((sol / "panel.tsv").exists() and (sol / f"{model}.tsv").exists() and dil.exists()):
        return None
    d = read_tsv(dil, empty_as_na=True)
    return (explode(read_tsv(sol / f"{model}.tsv", empty_as_na=True)),
            explode(read_tsv(sol / "panel.tsv", empty_as_na=True)),
            dict(zip(d["dilemma_id"], d["dilemma"].fillna(""))))


def designed_recall(pairs: pd.DataFrame, designed: set) -> float:
    key = list(zip(pairs["dilemma_id"], pairs["solution_cand"], pairs["solution_ref"]))
    kept = {k for k, j in zip(key, pairs["judge"]) if j}
    return len(kept & designed) / len(designed) if designed else float("nan")


def main() -> None:
    from cultalign.models.client import load_client
    from cultalign.monopolet.embeddings import load_embeddings
    from cultalign.monopolet.matching import JudgeSettings, PrefilterSettings, candidate_pairs, judge_pairs, prefilter

    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default=str(ROOT / "config" / "config.yaml"))
    ap.add_argument("--out", default=str(ROOT / "bench" / "out" / "monopolet_prefilter.json"))
    ap.add_argument("--large", type=int, default=1000, help="SYNTHETIC dilemmas of part B")
    ap.add_argument("--skip-judge", action="store_true")
    args = ap.parse_args()
    cfg = yaml.safe_load(Path(args.config).read_text())
    mono = cfg["monopolet"]
    settings = JudgeSettings.from_config(mono["judge"])
    # the arms compare the prefilter itself: no audit calls in the prefiltered arm
    settings = replace(settings, prefilter=replace(settings.prefilter, audit_fraction=0.0))
    emb = load_embeddings(mono["embeddings"])
    report: dict = {"judge_model": mono["judge"]["model"], "prefilter": settings.prefilter.__dict__,
                    "load_avg_start": os.getloadavg()}

    # -- part A: real judge, exhaustive vs prefiltered ------------------------
    cand, ref, dilemmas, designed = synthetic_tables()
    sets = {"synthetic": (cand, ref, dilemmas)}
    demo = demo_tables(cfg)
    if demo is not None:
        sets["demo"] = demo
    if not args.skip_judge:
        report["judge"] = {}
        for name, (c, r, dil) in sets.items():
            pairs = candidate_pairs(c, r)
            arms = {}
            arms_prefilter = (("exhaustive", replace(settings.prefilter, enabled=False)),
                              ("prefiltered", settings.prefilter))
            for arm, pf in arms_prefilter:
                with tempfile.TemporaryDirectory() as cache:
                    client = load_client(cfg["models"], mono["judge"]["model"], cache, writer=f"bench-{arm}",
                                         retry_temperature=cfg["retry"]["temperature"])
                    client.backend  # load the weights outside the timed part
                    t0, c0 = time.perf_counter(), time.process_time()
                    p = prefilter(pairs, emb, pf)
                    out = judge_pairs(client, p, dil, settings, seed=cfg.get("seed", 1),
                                      max_attempts=cfg["retry"]["max_attempts"])
                    arms[arm] = {"out": out, "wall_s": time.perf_counter() - t0, "cpu_s": time.process_time() - c0,
                                 "judge_calls": int(client.stats["model_requests"])}
            ex, pf_ = arms["exhaustive"]["out"], arms["prefiltered"]["out"]
            key = ["dilemma_id", "solution_cand", "solution_ref"]
            ex_matches = set(map(tuple, ex.loc[ex["match"] == 1, key].to_numpy().tolist()))
            # kept by the prefilter: judged, or decided by the identical-action rule
            kept = set(map(tuple, pf_.loc[pf_["decision"] != "prefilter_reject", key].to_numpy().tolist()))
            pf_matches = set(map(tuple, pf_.loc[pf_["match"] == 1, key].to_numpy().tolist()))
            row = {"pairs": len(pairs), "exhaustive_matches": len(ex_matches),
                   "recall_of_exhaustive_matches_kept": (len(ex_matches & kept) / len(ex_matches)
                                                         if ex_matches else None),
                   "prefiltered_matches_equal_exhaustive_on_kept": pf_matches == (ex_matches & kept),
                   "invalid_judgements": {a: int((~v["out"]["valid"]).sum()) for a, v in arms.items()}}
            for a, v in arms.items():
                row[a] = {k: round(x, 2) if isinstance(x, float) else x for k, x in v.items() if k != "out"}
            if name == "synthetic":
                p = prefilter(pairs, emb, settings.prefilter)
                row["designed_paraphrase_recall_kept"] = designed_recall(p, designed)
                dj = set(designed)
                row["judge_recall_of_designed_paraphrases"] = len(ex_matches & dj) / len(dj)
                row["judge_matches_on_designed_nonmatches"] = len(ex_matches - dj)
            report["judge"][name] = row
            print(name, json.dumps(row, default=str), flush=True)

    # -- part B: prefilter only, larger synthetic set --------------------------
    c, r, designed_l = large_synthetic(args.large)
    pairs = candidate_pairs(c, r)
    t0 = time.perf_counter()
    cached = _Cached(emb, sorted(set(pairs["action_cand"]) | set(pairs["action_ref"])))
    report["large"] = {"dilemmas": args.large, "pairs": len(pairs), "designed_matches": len(designed_l),
                       "distinct_actions": len(cached.vectors),
                       "embedding_wall_s": round(time.perf_counter() - t0, 2), "grid": []}
    for ms in (0.80, 0.85, 0.88, 0.90):
        for k in (0, 1, 2):
            p = prefilter(pairs, cached, PrefilterSettings(True, ms, k, 0.0))
            report["large"]["grid"].append({"min_similarity": ms, "top_k": k,
                                            "judge_fraction": round(float(p["judge"].mean()), 4),
                                            "designed_recall": round(designed_recall(p, designed_l), 4)})
    report["load_avg_end"] = os.getloadavg()
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(report, indent=2, default=str))
    print(json.dumps(report["large"], indent=1))


class _Cached:
    """The embedder's vectors of a fixed set of texts, computed once (for the settings grid)."""

    def __init__(self, emb, texts):
        self.vectors = dict(zip(texts, emb.passages(texts)))

    def passages(self, texts):
        import numpy as np

        return np.stack([self.vectors[t] for t in texts])


if __name__ == "__main__":
    main()
