"""Every claim's selector resolves against the paper configuration: a dry run of config/paper.yaml
(with the marked stand-ins of ``paper_stand_ins``) must schedule a job that writes the claim's
result file, and each ``where`` value that names a wildcard of the DAG (model, country,
instrument) must be one the paper DAG uses for that study, so a claim cannot select a model name
the paper configuration never runs.  (Selector values that name a row of a table, such as
``quantity: rows``, are checked on real tables by the claims' own tests.)"""

from __future__ import annotations

import re
import subprocess
from collections import defaultdict
from pathlib import Path

import pytest

from workflow import SMK, paper_stand_ins

from cultalign.claims import load_claims, on_real_data_scorecard

ROOT = Path(__file__).resolve().parents[2]

# where-key -> the DAG wildcard whose values it selects
WILDCARD_KEYS = {"model": "model", "country": "country", "instrument": "instrument", "baseline": "instrument"}
AGGREGATE = {"all"}  # rows the tables add over every value of a wildcard
# CulturalPersonas itself: its items are per country (results/personas/instruments/cp/{country}.tsv), so
# "cp" is no value of the {instrument} wildcard; the dry run must still build them
BUILT_OTHERWISE = {"instrument": ("cp", "results/personas/instruments/cp/")}


def dag(*args: str) -> tuple[set[str], dict[str, dict[str, set[str]]]]:
    """(output files, {study: {wildcard: values}}) of a dry run (``snakemake -n --forceall <args>``)."""
    out = subprocess.run([*SMK, "-n", "--forceall", "--cores", "1", *args], cwd=ROOT, capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    outputs: set[str] = set()
    wildcards: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for block in re.split(r"\n(?=(?:local)?rule \w+:)", out.stdout + out.stderr):
        rule = re.match(r"(?:local)?rule (\w+):", block)
        if not rule:
            continue
        study = rule.group(1).split("_", 1)[0]
        o = re.search(r"^\s+output: (.*)$", block, re.M)
        if o:
            outputs.update(s.strip() for s in o.group(1).split(","))
        w = re.search(r"^\s+wildcards: (.*)$", block, re.M)
        if w:
            for item in w.group(1).split(", "):
                k, _, v = item.partition("=")
                wildcards[study][k.strip()].add(v.strip())
    return outputs, wildcards


@pytest.mark.slow
def test_every_claim_selects_something_in_the_paper_dag(tmp_path):
    outputs, wildcards = dag("--configfile", "config/paper.yaml", paper_stand_ins(tmp_path))
    # value_from claims compare a paper-DAG result with the authors' released data: their result is a paper one
    claims = [c for c in load_claims(ROOT / "config" / "claims.yaml")
              if c["kind"] == "value" and (not c.get("needs") or "value_from" in c)]
    problems = _problems(claims, outputs, wildcards)
    assert not problems, "\n".join(problems)


@pytest.mark.slow
def test_every_real_data_claim_selects_a_table_of_the_real_data_run(shared_data):
    """The real-data claims (``needs`` a config key) against the DAG of config/real-data.yaml."""
    outputs, wildcards = dag("real_data_claims", "--configfile", "config/real-data.yaml")
    claims = [c for c in load_claims(ROOT / "config" / "claims.yaml")
              if c["kind"] == "value" and on_real_data_scorecard(c)]
    assert claims
    problems = _problems(claims, outputs, wildcards)
    assert not problems, "\n".join(problems)


def _problems(claims, outputs, wildcards) -> list[str]:
    problems = []
    for c in claims:
        if c["result"] not in outputs:
            problems.append(f"{c['id']}: no job of the paper DAG writes {c['result']}")
        for key, value in (c.get("where") or {}).items():
            value = str(value)
            other = BUILT_OTHERWISE.get(key)
            if other and value == other[0]:
                if not any(o.startswith(other[1]) for o in outputs):
                    problems.append(f"{c['id']}: {key}={value!r} but the DAG builds no {other[1]}*")
            elif key in WILDCARD_KEYS and value not in AGGREGATE:
                used = wildcards[c["paper"]][WILDCARD_KEYS[key]]
                if value not in used:
                    problems.append(f"{c['id']}: {key}={value!r} is not a {WILDCARD_KEYS[key]} of the paper DAG's "
                                    f"{c['paper']} jobs ({', '.join(sorted(used))})")
    return problems
