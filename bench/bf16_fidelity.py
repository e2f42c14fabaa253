"""bfloat16 against float32 on real CulturalPersonas release items (fidelity figures, not timings).

    .venv/bin/python bench/bf16_fidelity.py [--country usa] [--subsample 10] [--primings primed,unprimed]
        [--oeg-items 16] [--release ../shared/data/culturalpersonas] [--out bench/out/bf16_fidelity.json]

The default model (SmolLM2-135M-Instruct, 2 threads, the workflow's settings: oneDNN kernel, batch 64)
loaded twice, float32 and bfloat16, runs the workflow's own release steps on the same items:

1. MCS (``personas.evaluate.run_mcs``, the config's scoring mode and normalisation) on ``--subsample``
   items per instrument of one country (``release_eval.release_items``: the released questions and
   every baseline of ``personas.release_eval.baselines``), under each priming condition: the share of
   items whose most likely option agrees, the mean and largest absolute difference of the options'
   log-probs (as the table stores them, 4 decimals), and of the expected scores;
2. OEG (``oeg_requests``, greedy, the config's ``max_new_tokens``) on the first ``--oeg-items`` items of
   each contextual instrument: the share of identical greedy texts;
3. Table 2 gains (``personas.metrics.gains``: per trait 100 x (W_baseline - W_cp) / W_baseline, the
   mean over traits) from each dtype's MCS item probabilities (``sample_trait_scores``), each against the
   same reference: the change in every gain.  No real human (Johnson) scores are in the shared data, so
   the reference is a SYNTHETIC trait distribution (normal, mean 3.5, sd 0.6, clipped to 1-5, seeded);
   the figure is the difference between the dtypes, not a paper figure.

Also records the CPU and its bfloat16 support.  Thresholds (docs/personas.md) are checked by the reader.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import common
from common import default_model_spec

common.prepare_env()
ROOT = common.ROOT

DTYPES = ("float32", "bfloat16")


def synthetic_reference(n: int = 2000, seed: int = 7):
    """SYNTHETIC trait scores standing in for human ones (same for both dtypes)."""
    import numpy as np
    import pandas as pd

    from cultalign.personas.common import TRAITS

    rng = np.random.default_rng(seed)
    return pd.DataFrame({t: np.clip(rng.normal(3.5, 0.6, n), 1, 5) for t in TRAITS})


def run_dtype(dtype: str, items, oeg_items, primings, cfg, args) -> dict:
    from cultalign.models import ModelClient
    from cultalign.personas.evaluate import oeg_requests, run_mcs
    from cultalign.personas.release_eval import persona_for

    pc, seed = cfg["personas"], cfg["seed"]
    meta = pc["countries"][args.country]
    spec = default_model_spec(dtype=dtype, batch_size=64, max_batch_tokens=32768)
    client = ModelClient(spec, None)  # no request cache: every answer computed in this dtype
    mcs, oeg, secs = [], {}, {}
    for priming in primings:
        persona = persona_for(args.release, meta["name"], priming, pc["priming_n_norms"], seed, args.country,
                              meta.get("release_code", ""))
        t = time.perf_counter()
        for _, df in items.groupby("instrument", sort=False):
            res = run_mcs(client, df.reset_index(drop=True), persona, pc["mcs"]["score"], seed, args.country,
                          pc["mcs"]["normalise"])
            res["priming"] = priming
            mcs.append(res)
        secs[f"mcs_{priming}"] = time.perf_counter() - t
        t = time.perf_counter()
        for name, df in oeg_items.groupby("instrument", sort=False):
            reqs = oeg_requests(df.reset_index(drop=True), persona, seed, args.country, pc["oeg"])
            oeg[f"{priming}|{name}"] = [g.text for g in client.generate(reqs)]
        secs[f"oeg_{priming}"] = time.perf_counter() - t
    import pandas as pd

    return {"mcs": pd.concat(mcs, ignore_index=True), "oeg": oeg, "seconds": secs,
            "precision": client.provenance()["precision"], "load_s": client.load_seconds}


def table2(mcs, country: str, samples: int, seed: int, human):
    """Table 2 cells (``gains``, not by trait) of one dtype's MCS tables against ``human``."""
    import pandas as pd

    from cultalign.personas.common import TRAITS
    from cultalign.personas.evaluate import sample_trait_scores
    from cultalign.personas.metrics import gains
    from cultalign.stats.distances import compare

    rows = []
    for (inst, priming), g in mcs.groupby(["instrument", "priming"]):
        s = sample_trait_scores(g, samples, seed)
        for t in TRAITS:
            rows.append({"setting": "release", "model": "smollm2-135m-instruct", "instrument": inst,
                         "country": country, "priming": priming, "trait": t,
                         "W": compare(s[t].dropna(), human[t])["W"] if s[t].notna().any() else math.nan})
    return gains(pd.DataFrame(rows), "release", by_trait=False)


def compare_mcs(a, b) -> dict:
    keys = ["priming", "instrument", "item_id"]
    m = a.merge(b, on=keys, suffixes=("_f32", "_bf16"))
    agree, diffs, ex = [], [], []
    for _, r in m.iterrows():
        pa, pb = json.loads(r["probs_f32"]), json.loads(r["probs_bf16"])
        agree.append(max(range(len(pa)), key=pa.__getitem__) == max(range(len(pb)), key=pb.__getitem__))
        la, lb = json.loads(r["logprobs_shown_f32"]), json.loads(r["logprobs_shown_bf16"])
        diffs += [abs(x - y) for x, y in zip(la, lb)]
        ex.append(abs(r["expected_score_f32"] - r["expected_score_bf16"]))
    m["agree"] = agree
    by = {inst: {"items": len(g), "argmax_agree": int(g["agree"].sum())} for inst, g in m.groupby("instrument")}
    return {"items": len(m), "argmax_agree_share": sum(agree) / len(agree), "argmax_agree": int(sum(agree)),
            "logprob_abs_diff_mean": sum(diffs) / len(diffs), "logprob_abs_diff_max": max(diffs),
            "options": len(diffs), "expected_score_abs_diff_mean": sum(ex) / len(ex),
            "expected_score_abs_diff_max": max(ex), "by_instrument": by}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--country", default="usa")
    ap.add_argument("--subsample", type=int, default=10, help="items per instrument")
    ap.add_argument("--primings", default="primed,unprimed")
    ap.add_argument("--oeg-items", type=int, default=16, help="OEG items per contextual instrument")
    ap.add_argument("--samples", type=int, default=100, help="simulated respondents per Table 2 cell")
    ap.add_argument("--release", default=str(common.RELEASE))
    ap.add_argument("--out", default=str(ROOT / "bench" / "out" / "bf16_fidelity.json"))
    args = ap.parse_args()

    from cultalign.config import load_config
    from cultalign.models.cpu import cpu_features
    from cultalign.personas.release_eval import release_items

    cfg = load_config(ROOT / "config" / "config.yaml")
    pc = cfg["personas"]
    meta = pc["countries"][args.country]
    items = release_items(args.release, args.country, meta.get("release_code") or args.country, args.subsample,
                          pc["release_eval"]["baselines"], pc["bfi_key"], cfg["seed"])
    oeg_items = items[items["oeg"].astype(bool)].groupby("instrument", sort=False).head(args.oeg_items)
    primings = args.primings.split(",")
    res: dict = {"cpu": cpu_features(), "country": args.country, "subsample": args.subsample,
                 "primings": primings, "oeg_items_per_instrument": args.oeg_items,
                 "mcs_items": {k: int(v) for k, v in items["instrument"].value_counts().items()}}
    print("cpu", json.dumps(res["cpu"]), flush=True)
    runs = {}
    for dtype in DTYPES:
        runs[dtype] = run_dtype(dtype, items, oeg_items, primings, cfg, args)
        print(dtype, json.dumps({"seconds": runs[dtype]["seconds"], "precision": runs[dtype]["precision"]}),
              flush=True)
    f32, bf = runs["float32"], runs["bfloat16"]
    res["mcs"] = compare_mcs(f32["mcs"], bf["mcs"])
    print("mcs", json.dumps(res["mcs"]), flush=True)
    same = {k: sum(x == y for x, y in zip(f32["oeg"][k], bf["oeg"][k])) for k in f32["oeg"]}
    n = {k: len(v) for k, v in f32["oeg"].items()}
    res["oeg"] = {"identical": same, "texts": n, "identical_share": sum(same.values()) / sum(n.values())}
    print("oeg", json.dumps(res["oeg"]), flush=True)
    human = synthetic_reference()
    t2 = {d: table2(runs[d]["mcs"], args.country, args.samples, cfg["seed"], human) for d in DTYPES}
    m = t2["float32"].merge(t2["bfloat16"], on=["country", "baseline"], suffixes=("_f32", "_bf16"))
    res["table2_synthetic_reference"] = [
        {"baseline": r["baseline"], "gain_pct_f32": r["gain_pct_f32"], "gain_pct_bf16": r["gain_pct_bf16"],
         "change_pct_points": r["gain_pct_bf16"] - r["gain_pct_f32"]} for _, r in m.iterrows()]
    print("table2 (SYNTHETIC reference)", json.dumps(res["table2_synthetic_reference"]), flush=True)
    res["seconds"] = {d: runs[d]["seconds"] for d in DTYPES}
    res["precision"] = {d: runs[d]["precision"] for d in DTYPES}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(res, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
