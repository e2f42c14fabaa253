"""Real-data run on the published CulturalPersonas release: item selection,
release checks, and MCS/OEG on a tiny subsample with the real model; the target resolves."""

import copy
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from cultalign.config import load_schema, validate_config
from cultalign.personas.release_eval import (ReleaseError, check_release, release_items, run_release_mcs,
                                             run_release_oeg, subsample)
from cultalign.personas.release_summary import run_totals, trait_scores

ROOT = Path(__file__).resolve().parents[2]
SNAKEMAKE = Path(sys.executable).with_name("snakemake")
CODES = ["USA", "brazil", "india", "southafrica", "saudiarabia", "japan"]


def _cfg(**release_eval):
    cfg = validate_config(yaml.safe_load((ROOT / "config" / "config.yaml").read_text()), load_schema())
    p = copy.deepcopy(cfg["personas"])
    p["release_eval"].update(release_eval)
    return p


def _items(release, country, cfg, seed):
    return release_items(release, country, cfg["countries"][country]["release_code"],
                         cfg["release_eval"]["subsample"], cfg["release_eval"]["baselines"], cfg["bfi_key"], seed)


def test_subsample_is_seeded_trait_balanced_and_full_keeps_all():
    items = pd.DataFrame({"trait": list("OOOOCCCEEEEEAAN") * 2, "item_id": [str(i) for i in range(30)]})
    a = subsample(items, 7, seed=1, label="x")
    assert a.equals(subsample(items, 7, seed=1, label="x"))
    assert not a["item_id"].equals(subsample(items, 7, seed=2, label="x")["item_id"])
    counts = a["trait"].value_counts()
    assert len(a) == 7 and set(counts.index) == set("OCEAN") and counts.max() - counts.min() <= 1
    assert list(a["item_id"].astype(int)) == sorted(a["item_id"].astype(int))  # original order kept
    assert len(subsample(items, "full", 1, "x")) == 30 and len(subsample(items, 100, 1, "x")) == 30


def test_check_release_names_key_and_missing_files(tmp_path):
    with pytest.raises(ReleaseError, match="personas.release.path' is not set"):
        check_release(None, CODES, [])
    with pytest.raises(ReleaseError, match="does not exist"):
        check_release(tmp_path / "absent", CODES, [])
    (tmp_path / "datasets" / "cp" / "norms").mkdir(parents=True)
    (tmp_path / "datasets" / "cp" / "norms" / "openai_cultural_norms.json").write_text("{}")
    with pytest.raises(ReleaseError, match=r"all_japan_questions\.csv.*datasets/baselines/bfi\.csv"):
        check_release(tmp_path, ["japan"], ["datasets/baselines/bfi.csv"])


@pytest.fixture
def release(shared_data):
    root = shared_data / "culturalpersonas"
    if not (root / "datasets" / "cp").is_dir():
        pytest.skip(f"CulturalPersonas release not present at {root}")
    return root


@pytest.mark.realdata
def test_release_items_all_countries_and_baselines(release):
    cfg = _cfg(subsample=10)
    check_release(release, CODES, [b["file"] for b in cfg["release_eval"]["baselines"].values()])
    a, b = _items(release, "japan", cfg, 7), _items(release, "brazil", cfg, 7)
    assert a.groupby("instrument").size().to_dict() == {"cp": 10, "bfi44": 10, "ipip120": 10, "ipip300": 10,
                                                        "big5chat": 10}
    assert a.groupby("instrument")["n_full"].first().to_dict() == {"cp": 500, "bfi44": 44, "ipip120": 120,
                                                                   "ipip300": 300, "big5chat": 500}
    base = ["bfi44", "ipip120", "ipip300", "big5chat"]
    # the same baseline items for every country, different released questions
    assert list(a[a.instrument.isin(base)]["question"]) == list(b[b.instrument.isin(base)]["question"])
    assert list(a[a.instrument == "cp"]["question"]) != list(b[b.instrument == "cp"]["question"])
    assert a["oeg"].astype(bool).groupby(a["instrument"]).first().to_dict()["big5chat"]


@pytest.mark.realdata
@pytest.mark.slow
def test_release_mcs_oeg_tiny_subsample(release, smollm2_client):
    from cultalign.retrieval import embeddings_for

    cfg = _cfg(subsample=2, priming=["primed", "unprimed"], calibration_items=3,
               baselines={"bfi44": {"format": "bfi", "file": "datasets/baselines/bfi.csv", "oeg": False},
                          "big5chat": {"format": "big5chat", "file": "datasets/baselines/big5chat.csv",
                                       "oeg": True}})
    cfg["oeg"]["max_new_tokens"] = 12
    items = _items(release, "southafrica", cfg, 3)
    name, primings = cfg["countries"]["southafrica"]["name"], cfg["release_eval"]["priming"]
    mcs, cells = run_release_mcs(smollm2_client, release, items, "southafrica", name, "smollm2", primings,
                                 cfg["mcs"]["score"], cfg["mcs"]["normalise"], 3)
    assert len(mcs) == 2 * len(items) == 12 and len(cells) == 6
    for _, r in mcs.iterrows():
        n_opt = len(json.loads(items[(items.instrument == r.instrument) & (items.item_id == r.item_id)]
                               ["options"].iloc[0]))
        assert sorted(json.loads(r["shuffle"])) == list(range(n_opt))  # shuffle recorded, a permutation
        assert len(json.loads(r["logprobs_shown"])) == n_opt
        assert 0 < r["valid_mass"] <= 1 + 1e-6 and r["prompt_tokens"] > 0 and r["option_tokens"] >= n_opt
    # primed prompts carry the persona: more prompt tokens than unprimed for the same item
    pt = mcs.pivot_table(index=["instrument", "item_id"], columns="priming", values="prompt_tokens")
    assert (pt["primed"] > pt["unprimed"]).all()
    assert (cells["tokens_scored"] == cells["prompt_tokens"] + cells["option_tokens"]).all()
    assert cells["valid_mass_min"].notna().all() and (cells["tokens_scored_per_s"] > 0).all()

    emb = embeddings_for(cfg["corpus"]["embedding_model"]).embed_documents
    smollm2_client.max_attempts = 2
    oeg, ocells = run_release_oeg(smollm2_client, release, items, "southafrica", name, "smollm2", primings,
                                  cfg["oeg"], cfg["release_eval"]["calibration_items"], emb, 3)
    assert set(oeg["instrument"]) == {"cp", "big5chat"} and len(oeg) == 2 * 4 and len(ocells) == 4
    assert (oeg["prompt_tokens"] > 0).all() and (oeg["completion_tokens_first"] > 0).all()
    ok = oeg[oeg["valid"].astype(bool)]
    for _, r in ok.iterrows():
        assert math.isclose(sum(json.loads(r["probs"])), 1, abs_tol=1e-4)
    assert int(ocells["valid"].sum() + ocells["invalid"].sum()) == len(oeg)
    assert (ocells["generated_tokens"] >= ocells["n_items"]).all()
    # answers keep at most two sentences; cut and trimmed answers are counted per cell
    assert oeg["sentences"].between(0, 2).all()
    assert ((ocells["unfinished"] <= ocells["valid"]) & (ocells["trimmed"] <= ocells["valid"])).all()
    assert int(ocells["unfinished"].sum()) == int((ok["sentences"] == 0).sum())

    traits = trait_scores(mcs, oeg)
    assert set(traits["method"]) == {"mcs", "oeg"}
    assert traits["mean_score"].dropna().between(1, 5).all()
    totals = run_totals(pd.concat([cells, ocells], ignore_index=True), pd.DataFrame([{"load_s": 1.0}]))
    m = totals[totals["method"] == "mcs"].iloc[0]
    assert m["items"] == 12 and m["items_full"] == 2 * (500 + 44 + 500)
    assert m["extrapolated_full_s"] > m["wall_s"] and np.isfinite(m["valid_mass_min"])


@pytest.mark.realdata
@pytest.mark.slow
def test_release_target_dry_run(release):
    rc = yaml.safe_load((ROOT / "config" / "personas-release.yaml").read_text())
    if (ROOT / rc["personas"]["release"]["path"]).resolve() != release.resolve():
        pytest.skip(f"config/personas-release.yaml points at {rc['personas']['release']['path']}, not {release}")
    cmd = [str(SNAKEMAKE), "personas_release_eval", "-n", "--forceall", "--cores", "1", "--quiet", "rules",
           "--configfile", "config/personas-release.yaml"]
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    text = out.stdout + out.stderr
    for rule, n in (("personas_release_items", 6), ("personas_release_mcs", 6), ("personas_release_oeg", 6),
                    ("personas_release_summary", 1)):
        assert any(line.split() == [rule, str(n)] for line in text.splitlines()), text[-2000:]
