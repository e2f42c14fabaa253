"""The real-data claims: model-free tables from the real inputs in ../shared/data
(config/real-data.yaml) and the claims that read them; the run itself in a copy of the checkout."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from cultalign.core.inputs import InputError
from cultalign.pact.real_data import normad_label_counts, pact_site_data
from cultalign.personas.real_data import IPIP_LISTS, ipip_item_counts, repro_ks_denominator

ROOT = Path(__file__).resolve().parents[2]


def test_normad_label_counts(tmp_path):
    p = tmp_path / "labels.csv"
    p.write_text("Country,neutral,no,yes\nx,1,2,3\ny,4,5,6\n")
    t = normad_label_counts(p).set_index("quantity")["value"]
    assert t["rows"] == 21 and t["countries"] == 2 and t["gold_yes"] == 9 and t["gold_neutral"] == 5
    assert t["normad_instances"] == 21 * 48
    for bad_row, problem in (("y,4,5,six", "yes"), ("x,4,5,6", "appears twice")):
        p.write_text(f"Country,neutral,no,yes\nx,1,2,3\n{bad_row}\n")
        with pytest.raises(InputError, match=problem):
            normad_label_counts(p)


def test_ipip_item_counts(tmp_path):
    """Fake item lists in the four files' formats: items per domain; a domain outside OCEAN names its row."""
    for _source, _instrument, name, fmt, field in IPIP_LISTS:
        domains = "OCEAN" * 2 + "N"
        if fmt == "json":
            (tmp_path / name).write_text(json.dumps([{"text": f"item {i}", field: d} for i, d in enumerate(domains)]))
        else:
            (tmp_path / name).write_text(f"text,{field}\n" + "".join(f"item {i},{d}1\n" for i, d in enumerate(domains)))
    t = ipip_item_counts(tmp_path).set_index(["group", "source", "trait"])["value"]
    assert t[("ipip120", "psychobench", "N")] == 3 and t[("ipip300", "automoto", "O")] == 2
    assert t[("ipip300", "alheimsins", "all")] == 11
    name, field = IPIP_LISTS[3][2], IPIP_LISTS[3][4]
    (tmp_path / name).write_text(f"text,{field}\nitem,O1\nitem,X2\n")
    with pytest.raises(InputError, match=rf"{name}, line 3, field '{field}': line 3: domain 'X2'"):
        ipip_item_counts(tmp_path)


def test_repro_ks_denominator(tmp_path):
    """Fake reproduction results: KS statistics k/398 give 398 rows; 1/3 and 1/2 give 6; a text cell names its field."""
    p = tmp_path / "results_FINAL_JAPAN.csv"
    p.write_text(f",O,C,E,A,N\nModel_Score,4,5,3,5,3\nKS_Stat,{325 / 398!r},1.0,{263 / 398!r},1.0,{242 / 398!r}\n")
    assert repro_ks_denominator(tmp_path).set_index("quantity")["value"]["ks_denominator"] == 398
    p.write_text(f",O,C,E,A,N\nKS_Stat,{1 / 3!r},0.5,1.0,0.0,{2 / 3!r}\n")
    assert repro_ks_denominator(tmp_path).set_index("quantity")["value"]["ks_denominator"] == 6
    p.write_text(",O,C,E,A,N\nKS_Stat,0.5,high,1.0,0.0,0.5\n")
    with pytest.raises(InputError, match=r"line 2, field 'C': KS statistic 'high' is not a number"):
        repro_ks_denominator(tmp_path)


def test_pact_site_data_derived_rows(tmp_path, shared_data):
    data = json.loads((shared_data / "pact" / "pact_site_summary_data.json").read_text())
    p = tmp_path / "site.json"
    p.write_text(json.dumps(data))
    t = pact_site_data(p)
    d = t[t.series == "derived"].set_index(["key", "frame", "field"])["value"]
    assert d[("all", "all", "region_delta_range")] == pytest.approx(7.8)
    assert d[("DeepSeek-7B-Chat", "all", "aggregate_mae")] == pytest.approx(0.0925)
    assert d[("GPT-5.4-mini", "all", "best_uncertainty_corr")] == pytest.approx(0.241)
    data["regionEffects"][0]["delta"] = "n/a"
    p.write_text(json.dumps(data))
    with pytest.raises(InputError, match=r"regionEffects\[0\]\.delta"):
        pact_site_data(p)


def test_site_significance_text_is_read_as_numbers(tmp_path):
    """Fake significance records in the site's text format (B.9's Table 13): rates, difference, range,
    Cramer's V and the p-value bound as rows; a record without a number names its field."""
    from cultalign.pact.real_data import significance_rows

    recs = [{"factor": "Model family", "effect_size": "range 0.8-34.2 pp; Cramer V=0.354", "p_value": "<1e-300"},
            {"factor": "Actor age", "effect_size": "younger: 15.4%, older: 14.0%, diff=+1.38 pp", "p_value": "<1e-300"},
            {"factor": "Age pair", "effect_size": "15.8% vs 13.9%, diff=+1.88 pp", "p_value": "0.003"}]
    got = {(k, f): v for _, k, _, f, v, _ in significance_rows(recs, tmp_path / "site.json")}
    assert got == {("Model family", "range_low"): 0.8, ("Model family", "range_high"): 34.2,
                   ("Model family", "cramers_v"): 0.354, ("Model family", "p_bound"): 1e-300,
                   ("Actor age", "rate_a"): 15.4, ("Actor age", "rate_b"): 14.0, ("Actor age", "diff"): 1.38,
                   ("Actor age", "p_bound"): 1e-300, ("Age pair", "rate_a"): 15.8, ("Age pair", "rate_b"): 13.9,
                   ("Age pair", "diff"): 1.88, ("Age pair", "p_value"): 0.003}
    for bad, field in (({"factor": "x", "effect_size": "large", "p_value": "<1e-3"}, r"significance\[0\].effect_size"),
                       ({"factor": "x", "effect_size": "diff=+1 pp", "p_value": "tiny"}, r"significance\[0\].p_value"),
                       ({"factor": "x", "effect_size": "diff=+1 pp"}, r"significance\[0\].p_value")):
        with pytest.raises(InputError, match=field):
            significance_rows([bad], tmp_path / "site.json")


@pytest.mark.slow
def test_real_data_run(tmp_path, shared_data):
    """`snakemake real_data_claims --configfile config/real-data.yaml` in a copy: only the model-free
    real-data rules run; the scorecard shows the real-data claims and the consistency checks."""
    from conftest import copy_worktree
    from workflow import planned_jobs, snakemake

    work = copy_worktree(tmp_path / "work", link_models=False)
    (tmp_path / "shared").symlink_to(shared_data.parent)  # ../shared/data from the copy
    args = ("real_data_claims", "--configfile", "config/real-data.yaml")
    assert {j.rule for j in planned_jobs(work, *args)} == {
        "real_data_normad", "real_data_pact_site", "real_data_personas_release", "real_data_ipip_items",
        "real_data_personas_repro",
        "claims_inventory", "claims_statements", "real_data_text_vs_code", "real_data_claims"}
    out = snakemake(work, "--cores", "1", *args, timeout=900)
    assert out.returncode == 0, out.stderr[-4000:]
    t = pd.read_csv(work / "results" / "real_data" / "claims.csv").set_index("id")
    assert t.loc["pact.real.normad_rows", "status"] == "reproduced"
    assert t.loc["pact.real.instances_normad", "reproduced_value"] == 126384
    assert t.loc["pact.real.instances_normad", "status"] == "design check"  # rows x 48
    assert t.loc["pact.real.best_uncertainty_corr", "reproduced_value"] == pytest.approx(0.241)
    assert t.loc["pact.real.best_uncertainty_corr", "status"] == "matches the authors' figure data"
    assert t.loc["personas.real.questions_total", "status"] == "reproduced"
    # the release's BFI has 9 conscientiousness items where Table 5 says 8
    assert t.loc["personas.real.table5.bfi44.C", "status"] == "differs"
    assert t.loc["personas.real.table5.bfi44.C", "reproduced_value"] == 9
    # Table 5's IPIP item counts in independent public item lists
    assert (t.loc[t.index.str.startswith("personas.real.ipip_items."), "status"] == "reproduced").sum() == 20
    # a public reproduction's KS statistics imply the 398 Japan respondents the paper states
    assert t.loc["personas.consistency.repro_japan_rows", "status"] == "consistent"
    assert t.loc["pact.consistency.judgments_design", "status"] == "inconsistent"
    assert "2800" in t.loc["pact.consistency.judgments_design", "reason"]
    assert t.loc["pact.consistency.gap_sign_s53_definition", "status"] == "inconsistent"
    assert t.loc["pact.consistency.gap_sign_f1_and_prose", "status"] == "consistent"
    assert not t["status"].str.startswith("not computable").any(), t[t["status"].str.startswith("not")]
    facts = pd.read_csv(work / "results" / "real_data" / "claims_facts.csv").set_index("fact")
    assert facts.loc["personas.fact.questions_per_trait_and_country", "claims"] == 30
    # B.9's Table 13 from the site's significance series: the receiver rates are the authors' figure data
    assert t.loc["pact.real.b9.cramer.scenario_type", "status"] == "matches the authors' figure data"
    assert t.loc["pact.real.b9.max_p", "reproduced_value"] == 1e-300
    assert t.loc["pact.consistency.b9_delta.receiver_age", "evidence"] == "authors' figure data"
    summary = pd.read_csv(work / "results" / "real_data" / "claims_summary.csv")
    assert {"facts", "consistency checks (authors' figure data)", "consistency checks (paper arithmetic)",
            "coverage: checks that cannot fail (metric bounds)"} <= set(summary["kind"])
    # the errata: every finding once, one status, the checks behind it, what the workflow does about it
    from cultalign import findings as fd

    checks = pd.read_csv(work / "results" / "real_data" / "claims_checks.csv", keep_default_na=False)
    groups = fd.load_findings(work / "config" / "claims.yaml")
    assert fd.unmatched_patterns(checks, groups) == [] and fd.disagreeing_findings(checks, groups) == []
    errata = pd.read_csv(work / "results" / "real_data" / "claims_errata.csv").set_index("finding")
    assert errata.index.is_unique and len(errata) == 21
    assert set(errata["status"]) == {"inconsistent", "conditional"}
    assert "F.1" in errata.loc["pact.consistency.gap_sign_s53_definition", "resolution"]
    assert not (errata["resolution"] == "not recorded").any(), errata[errata["resolution"] == "not recorded"]
    share = errata.loc["monopolet.finding.a2_issue_share"]
    assert share["status"] == "conditional" and "derived: percent of counts | monopolet §A.2 24% #1" in share["checks"]
    za = errata.loc["personas.finding.za_up_to"]
    assert za["status"] == "conditional" and "its row (ZA)" in za["evidence"] and "its column" in za["evidence"]
    assert errata.loc["personas.finding.table2_vs_table7", "checks"].count("(does not hold)") == 5
    assert errata.loc["monopolet.consistency.a1_samples", "status"] == "conditional"
    assert "two-sided" in errata.loc["personas.consistency.wilcoxon_p05", "resolution"]
    assert errata.loc["pact.finding.rate_alignment_rankings", "status"] == "conditional"
    assert (checks[checks["coverage"] != ""]["status"] == "holds").all()
    cons = pd.read_csv(work / "results" / "real_data" / "claims_consistency.csv")
    assert set(cons["status"]) == {"consistent", "inconsistent", "conditional"}
    assert "undecided" in set(pd.read_csv(work / "results" / "real_data" / "claims_statements.tsv", sep="\t")["status"])
    # "Llama and GPT favour preferences": true relative to the other models, not in absolute terms
    assert t.loc["pact.consistency.norm_vs_preference_models", "status"] == "conditional"
    assert cons["arithmetic"].str.endswith(("-> holds", "-> does not hold")).all()


@pytest.mark.slow
def test_real_data_keys_are_named_when_missing(tmp_path):
    from conftest import copy_worktree
    from workflow import snakemake

    work = copy_worktree(tmp_path / "work", link_models=False)
    out = snakemake(work, "-n", "--cores", "1", "results/pact/real_data/normad_labels.tsv")
    assert out.returncode != 0
    assert "config key 'real_data.normad_labels' is not set" in out.stdout + out.stderr
    out = snakemake(work, "-n", "--cores", "1", "real_data_claims", "--config",
                    "real_data={'normad_labels': 'nope/labels.csv', 'pact_site_data': null}")
    assert out.returncode != 0
    assert "nope/labels.csv (set by config key 'real_data.normad_labels') does not exist" in out.stdout + out.stderr
