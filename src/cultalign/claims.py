"""Claims scorecard: the papers' numbers vs what this run computed, and the papers' own arithmetic.

``config/claims.yaml`` has two sections.  ``columns`` gives the unit of every result column a
claim reads (``"<result file>:<column>": <unit>``); ``claims`` holds the entries.

A **value claim** (``kind: value``, the default) compares a number the paper states with the
number a rule of the workflow computed::

    - id: pact.allow_rate_llama
      paper: pact                 # pact | personas | monopolet
      place: "Figure 3"           # where the paper states it
      statement: "Llama-3.1-8B allows preference in 39.5% of decisions"
      value: 39.5                 # as the paper states it ...
      unit: percent               # ... in this unit
      tolerance: 0.05             # in the claim's unit
      basis: rounding             # exact | rounding | sampling | range (what the band stands for)
      basis_note: "..."           # required for sampling and range: how the band was sized
      signed: true                # optional: the sign must match too (default: true for
                                  # difference units and correlations)
      result: results/pact/analysis/rates_by_model.tsv
      column: allow_rate          # its unit comes from `columns` (here: fraction)
      where: {model: llama-3.1-8b-instruct}   # selects exactly one row
      scale: paper                # paper: only comparable on the papers' full inputs; any: real
                                  # inputs at every scale (the real-data claims)
      needs: real_data.normad_labels   # optional: the config key of the real input the result is
                                  # computed from; unset -> not computable, naming the key

The computed value is converted to the claim's unit before it is compared (fraction <-> percent,
fraction difference <-> percentage points); units of different kinds never compare.  A band is
``value +- tolerance`` (or ``rel_tolerance``); it must exclude zero (``band_problems``).
``logprob_columns`` lists the result columns computed from option log-probabilities: those move
by up to ``LOGPROB_SHIFT`` nats with the batch size, so a claim on one needs a band of basis
``sampling`` or ``range``, never ``exact`` or ``rounding`` (a rerun need not give it back exactly).

A **consistency claim** (``kind: consistency``) checks the papers' numbers against each other or
against inputs by arithmetic::

    - id: pact.consistency.judgments
      kind: consistency
      paper: pact
      place: "Section 5.1"
      statement: "200 participants x 7 scenarios x 2 questions = 4,098 judgments?"
      unit: count
      check: "200 * 7 * 2 == paper('pact.human_judgments')"

``check`` is an arithmetic comparison over numbers, ``paper('<claim id>')`` (the paper value of a
value claim, in that claim's unit), ``computed('<claim id>')`` (the value this run computed for
it, in the claim's unit), ``value('<result file>', '<column>', key='row value', ...)`` (one cell
of a result table, as stored; not from a table computed from synthetic inputs) and the functions
``abs min max round mean sum approx wilcoxon_min_p``; ``approx(a, b, tol)`` is ``|a - b| <= tol``.
Status ``consistent`` or ``inconsistent``, with the arithmetic shown (each side's expression and
value).

Further keys: ``value_from: {result, column, where}`` instead of ``value`` for a number only the
authors' released data give (read from that input's table; the claim ``needs`` its config key, and
so does every check that uses it); ``readings: {name: check}`` and ``assumption`` instead of
``check`` for a check that depends on an assumption the paper does not state (status
``conditional`` when the readings disagree); ``resolution`` (what the workflow does about a check
that fails: the errata table).  Top-level sections ``evidence`` ({authors-figure-data | design:
[claim id patterns]}: the status of a value inside its band is then "matches the authors' figure
data" or "design check", not "reproduced") and ``facts`` ({fact id: {statement, claims: [claim id
patterns]}}: rows of one fact count once in ``facts_table`` / ``summary_table``).  Check function
``half_unit('<id>', ...)``: the summed rounding of the named stated numbers.  Comparisons are exact
on 15 significant digits (``_snap``), with no edge epsilon.

Statuses of value claims: ``reproduced`` (within tolerance and of the right sign), ``differs``,
``not computable: synthetic input`` (the result table's provenance sidecar says it was computed
from synthetic inputs; the reason names their config keys), or ``not computable`` with the
reason (study not configured, result not produced, demo-scale inputs, row missing).
"""

from __future__ import annotations

import ast
import copy
import fnmatch
import math
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

import pandas as pd

from .core.provenance import read_sidecar
from .core.yamlload import safe_load

SYNTHETIC_STATUS = "not computable: synthetic input"
FIGURE_DATA_STATUS = "matches the authors' figure data"
DESIGN_STATUS = "design check"
CONDITIONAL_STATUS = "conditional"  # a consistency check whose readings of an unstated assumption disagree
STATUSES = ("reproduced", FIGURE_DATA_STATUS, DESIGN_STATUS, "differs", "not computable", SYNTHETIC_STATUS,
            "consistent", "inconsistent", CONDITIONAL_STATUS)
# evidence class of a value claim (section `evidence` of claims.yaml) -> its status when inside the band
EVIDENCE = {
    "primary": "reproduced",                   # computed by the workflow's rules from primary data
    "authors-figure-data": FIGURE_DATA_STATUS,  # read back from the authors' released figure data
    "design": DESIGN_STATUS,                   # restates the design (rows x a constant of the design)
}
PASSED = tuple(EVIDENCE.values())
KINDS = ("value", "consistency")
BASES = ("exact", "rounding", "sampling", "range")
# Greedy option log-probabilities of one request differ by up to this many nats between batch
# sizes (transformers backend on the CPU, SmolLM2-135M: 2.6e-5 between batches of 1, 4 and 16;
# the decisions taken from them and the generated texts were identical): docs/reliability.md
LOGPROB_SHIFT = 2.6e-5

# unit -> (dimension, factor to the dimension's base unit).  Only units of one dimension convert.
UNITS: dict[str, tuple[str, float]] = {
    "fraction": ("share", 1.0),            # 0..1
    "percent": ("share", 0.01),            # 0..100
    "fraction difference": ("difference", 1.0),   # difference of two fractions
    "percentage points": ("difference", 0.01),    # difference of two percentages
    "count": ("count", 1.0),
    "correlation": ("correlation", 1.0),   # Pearson r
    "agreement coefficient": ("agreement coefficient", 1.0),  # kappa, PABAK, AC1
    "cramers v": ("cramers v", 1.0),
    "wasserstein distance": ("wasserstein distance", 1.0),   # on the 1-5 trait-score scale
    "ratio": ("ratio", 1.0),               # a plain quotient (e.g. solutions per dilemma, TTR)
    "p-value": ("p-value", 1.0),
}
SIGNED_DIMENSIONS = ("difference", "correlation")

REQUIRED = {
    "value": ("id", "paper", "place", "statement", "value", "unit", "basis", "result", "column"),
    "consistency": ("id", "paper", "place", "statement", "check"),
}
COLUMNS = ["id", "kind", "paper", "place", "statement", "unit", "paper_value", "reproduced_value",
           "tolerance", "status", "reason", "result", "fact", "evidence"]


class ClaimsError(ValueError):
    pass


def convert(value: float, from_unit: str, to_unit: str) -> float:
    """``value`` in ``from_unit`` expressed in ``to_unit``; ClaimsError across dimensions."""
    (d1, f1), (d2, f2) = _unit(from_unit), _unit(to_unit)
    if d1 != d2:
        raise ClaimsError(f"cannot convert {from_unit!r} ({d1}) to {to_unit!r} ({d2})")
    return value if f1 == f2 else value * f1 / f2   # no binary noise when nothing converts


def _unit(name: str) -> tuple[str, float]:
    if name not in UNITS:
        raise ClaimsError(f"unknown unit {name!r} (known: {', '.join(UNITS)})")
    return UNITS[name]


def is_signed(c: dict) -> bool:
    if "signed" in c:
        return bool(c["signed"])
    return _unit(c["unit"])[0] in SIGNED_DIMENSIONS


def band(c: dict) -> tuple[float, float]:
    """The accepted interval of a value claim, in its unit."""
    v = float(c["value"])
    half = abs(v) * float(c["rel_tolerance"]) if "rel_tolerance" in c else float(c.get("tolerance", 0))
    return v - half, v + half


def band_problems(c: dict) -> list[str]:
    """Why a value claim's band is not an honest rounding/sampling band (empty list when it is):
    it admits zero or the opposite sign, or spans half the value or more."""
    if c.get("kind", "value") != "value" or not isinstance(c.get("value"), (int, float)):
        return []
    v = float(c["value"])
    lo, hi = band(c)
    out = []
    if v != 0 and lo <= 0 <= hi:
        out.append(f"band [{lo:g}, {hi:g}] admits zero or the opposite sign of {v:g}")
    half = (hi - lo) / 2
    # a rounding band may be half the value (1% stated to the unit: [0.5, 1.5]); any other band less
    if v != 0 and (half > 0.5 * abs(v) + 1e-12 or (c.get("basis") != "rounding" and half >= 0.5 * abs(v))):
        out.append(f"half-width {half:g} is half of |{v:g}| or more")
    if c.get("basis") == "exact" and hi != lo:
        out.append("basis exact with a non-zero tolerance")
    if c.get("basis") in ("sampling", "range") and not c.get("basis_note"):
        out.append(f"basis {c['basis']} without basis_note (how the band was sized)")
    if c.get("from_logprobs") and c.get("basis") in ("exact", "rounding"):
        out.append(f"basis {c['basis']} on a column computed from option log-probabilities, which move by up "
                   f"to {LOGPROB_SHIFT:g} nats with the batch size (a rerun need not give the value back "
                   "exactly): use a sampling band")
    return out


# checked claims per (file, mtime, size): the workflow's input and param functions read the
# file several times while Snakemake builds one DAG
_LOADED: dict[tuple[str, int, int], list[dict[str, Any]]] = {}


def load_claims(path: str | Path) -> list[dict[str, Any]]:
    """The claims of ``path``, checked; each value claim gets ``result_unit`` from ``columns``.

    A file read before (same path, modification time and size) is not parsed again; the caller
    gets its own copy either way."""
    st = Path(path).stat()
    key = (str(Path(path).resolve()), st.st_mtime_ns, st.st_size)
    if key not in _LOADED:
        _LOADED.clear()
        _LOADED[key] = _load_claims(path)
    return copy.deepcopy(_LOADED[key])


def _load_claims(path: str | Path) -> list[dict[str, Any]]:
    data = safe_load(Path(path).read_text()) or {}
    claims = data.get("claims") or []
    columns = data.get("columns") or {}
    logprob_columns = set(data.get("logprob_columns") or [])
    unknown = sorted(logprob_columns - set(columns))
    if unknown:
        raise ClaimsError(f"{path}: logprob_columns {unknown} are not in section `columns`")
    for key, unit in columns.items():
        if unit == "mixed":
            continue
        try:
            _unit(unit)
        except ClaimsError as e:
            raise ClaimsError(f"{path}: columns.{key}: {e}") from None
    seen = set()
    for i, c in enumerate(claims):
        where = f"{path}: claim #{i} ({c.get('id', '?')})"
        kind = c.setdefault("kind", "value")
        if kind not in KINDS:
            raise ClaimsError(f"{where}: kind {kind!r} is not one of {KINDS}")
        if kind == "consistency" and "readings" in c:
            _set_readings(c, where)
        if kind == "value" and "value_from" in c:
            _check_value_from(c, where)
        missing = [k for k in REQUIRED[kind] if k not in c and not (k == "value" and "value_from" in c)]
        if missing:
            raise ClaimsError(f"{where} lacks {missing}")
        if c["id"] in seen:
            raise ClaimsError(f"{path}: duplicate claim id {c['id']!r}")
        seen.add(c["id"])
        if "unit" in c:
            try:
                _unit(c["unit"])
            except ClaimsError as e:
                raise ClaimsError(f"{where}: {e}") from None
        if kind == "value":
            if c.get("scale", "paper") not in ("paper", "demo", "any"):
                raise ClaimsError(f"{where}: scale {c['scale']!r} is not one of paper, demo, any")
            if c["basis"] not in BASES:
                raise ClaimsError(f"{where}: basis {c['basis']!r} is not one of {BASES}")
            key = f"{c['result']}:{c['column']}"
            c["from_logprobs"] = key in logprob_columns
            if key not in columns:
                raise ClaimsError(f"{where}: {path} has no unit for result column {key!r} (section `columns`)")
            if columns[key] == "mixed":  # a quantity/value table: each claim names its row's unit
                if "result_unit" not in c:
                    raise ClaimsError(f"{where}: result column {key} holds mixed units; the claim needs result_unit")
            else:
                c["result_unit"] = columns[key]
            try:
                convert(1.0, c["result_unit"], c["unit"])
            except ClaimsError as e:
                raise ClaimsError(f"{where}: result column {key}: {e}") from None
        else:
            try:
                _parse_check(c["check"])
                check_tables(c["check"])
            except (SyntaxError, ClaimsError) as e:
                raise ClaimsError(f"{where}: check {c['check']!r}: {e}") from None
    ids = {c["id"]: c for c in claims}
    _assign_evidence(claims, data.get("evidence") or {}, path)
    _assign_facts(claims, data.get("facts") or {}, path)
    for c in claims:
        if c["kind"] == "consistency":
            for ref in _references(c["check"]):
                if ref not in ids or ids[ref]["kind"] != "value":
                    raise ClaimsError(f"{path}: claim {c['id']}: check refers to {ref!r}, not a value claim")
                # a check that uses a number of the authors' released data needs that input
                if "value_from" in ids[ref] and c.get("needs", ids[ref]["needs"]) != ids[ref]["needs"]:
                    raise ClaimsError(f"{path}: claim {c['id']}: reads {ref} ({ids[ref]['needs']}) and needs "
                                      f"{c['needs']}")
                if "value_from" in ids[ref]:
                    c["needs"] = ids[ref]["needs"]
            c["evidence"] = _consistency_evidence(c, claims)
            for ref in _half_unit_refs(c["check"]):
                vf = ids[ref].get("value_from")
                if vf and "stated_to" not in vf and ids[ref].get("basis") != "rounding":
                    raise ClaimsError(f"{path}: claim {c['id']}: half_unit('{ref}') of a number read from the "
                                      "authors' data needs value_from.stated_to (the last digit they state)")
    return claims


# what a consistency check compares (its `evidence`): the paper's numbers only, the paper against the
# authors' released figure data only, or against real data the workflow computed from or read
CONSISTENCY_EVIDENCE = ("paper arithmetic", "authors' figure data", "real data")


def _consistency_evidence(c: dict, claims: list[dict]) -> str:
    """``paper arithmetic`` (the paper's numbers only); ``authors' figure data`` (it needs only the
    input that the value claims of evidence authors-figure-data read, and no value this run
    computed); else ``real data``."""
    if not reads_real_data(c):
        return CONSISTENCY_EVIDENCE[0]
    figure_keys = {v.get("needs") for v in claims
                   if v["kind"] == "value" and v.get("evidence") == "authors-figure-data"}
    if c.get("needs") in figure_keys and not re.search(r"\bcomputed\(", c["check"]):
        return CONSISTENCY_EVIDENCE[1]
    return CONSISTENCY_EVIDENCE[2]


def _check_value_from(c: dict, where: str) -> None:
    """A number that comes from the authors' released data, not from the paper's text, is read from
    that input's table (``value_from: {result, column, where}``) and the claim ``needs`` its config key."""
    vf = c["value_from"]
    if "value" in c:
        raise ClaimsError(f"{where}: give either value (as the paper prints it) or value_from, not both")
    if not isinstance(vf, dict) or not vf.get("result") or not vf.get("column"):
        raise ClaimsError(f"{where}: value_from needs result, column and where")
    if not c.get("needs"):
        raise ClaimsError(f"{where}: value_from reads an input: the claim needs its config key (key needs)")
    if "stated_to" in vf and not (isinstance(vf["stated_to"], (int, float)) and vf["stated_to"] > 0):
        raise ClaimsError(f"{where}: value_from.stated_to is the unit of the last digit the source states (0.1)")


def _set_readings(c: dict, where: str) -> None:
    """A check that depends on an assumption the paper does not state (one- or two-sided test,
    relative or absolute reading of "favours") gives each reading its own check (``readings``:
    {name: check}) and names the ``assumption``; ``check`` becomes their conjunction (what every
    reading reads)."""
    readings = c["readings"]
    if "check" in c:
        raise ClaimsError(f"{where}: give either check or readings, not both")
    if not isinstance(readings, dict) or len(readings) < 2 or not all(isinstance(v, str) for v in readings.values()):
        raise ClaimsError(f"{where}: readings must map two or more reading names to checks")
    if not c.get("assumption"):
        raise ClaimsError(f"{where}: readings need the assumption they differ in (key assumption)")
    c["check"] = " and ".join(f"({chk})" for chk in readings.values())


def _group_by_patterns(claims: list[dict], groups: dict[str, list[str]], what: str, path) -> dict[str, str]:
    """{claim id: group} from {group: [claim id patterns (fnmatch)]}; a pattern matching no claim,
    or a claim in two groups, is an error naming the section ``what``."""
    ids = [c["id"] for c in claims]
    by_id: dict[str, str] = {}
    for group, patterns in groups.items():
        for pat in patterns:
            hit = [i for i in ids if fnmatch.fnmatchcase(i, pat)]
            if not hit:
                raise ClaimsError(f"{path}: {what}.{group}: {pat!r} matches no claim")
            for i in hit:
                if by_id.get(i, group) != group:
                    raise ClaimsError(f"{path}: claim {i} is in {what} {by_id[i]} and {group}")
                by_id[i] = group
    return by_id


def _assign_evidence(claims: list[dict], section: dict, path) -> None:
    """``evidence`` of every value claim: its own key, else the class whose id patterns match it,
    else ``primary``."""
    for cls in section:
        if cls not in EVIDENCE:
            raise ClaimsError(f"{path}: evidence.{cls}: not one of {tuple(EVIDENCE)}")
    by_id = _group_by_patterns(claims, section, "evidence", path)
    for c in claims:
        if c["kind"] != "value":
            continue
        c.setdefault("evidence", by_id.get(c["id"], "primary"))
        if c["evidence"] not in EVIDENCE:
            raise ClaimsError(f"{path}: claim {c['id']}: evidence {c['evidence']!r} is not one of {tuple(EVIDENCE)}")


def _assign_facts(claims: list[dict], section: dict, path) -> None:
    """``fact`` of every claim: the fact (section ``facts``) whose claim patterns match it, else its id.
    One fact stated in many places (3,000 questions; 100 per trait per country) is one fact."""
    for fact, spec in section.items():
        if not isinstance(spec, dict) or not spec.get("statement") or not spec.get("claims"):
            raise ClaimsError(f"{path}: facts.{fact}: needs statement and claims")
    by_id = _group_by_patterns(claims, {f: spec["claims"] for f, spec in section.items()}, "facts", path)
    for c in claims:
        c["fact"] = by_id.get(c["id"], c["id"])


def claim_result_files(claims: list[dict], studies: list[str], needs_set: dict[str, bool] | None = None) -> list[str]:
    """Result files the value claims of ``studies`` read (not those whose ``needs`` key is unset)."""
    files = set()
    for c in claims:
        if c["paper"] in studies and _needs_ok(c, needs_set):
            files.update([c["result"]] if c["kind"] == "value" else check_tables(c["check"]))
            if "value_from" in c:
                files.add(c["value_from"]["result"])
    return sorted(files)


def on_real_data_scorecard(c: dict) -> bool:
    """A claim of the real-data scorecard (rule real_data_claims): a value computed from a real
    input (``needs``, not a paper-scale result compared with the authors' data) or a consistency check."""
    return c["kind"] == "consistency" or (bool(c.get("needs")) and "value_from" not in c)


def _needs_ok(c: dict, needs_set: dict[str, bool] | None) -> bool:
    return not c.get("needs") or needs_set is None or bool(needs_set.get(c["needs"]))


def _read_table(path: Path) -> pd.DataFrame:
    sep = "\t" if path.suffix in (".tsv", ".tab") else ","
    return pd.read_csv(path, sep=sep)


def evaluate(claims: list[dict], studies: list[str], scale: str, base: str | Path = ".",
             needs_set: dict[str, bool] | None = None) -> pd.DataFrame:
    """The scorecard: one row per claim (``COLUMNS``).  ``needs_set``: {config key: set?} for the
    keys claims ``need`` (None: not checked)."""
    rows = []
    cache: dict[str, pd.DataFrame] = {}
    computed: dict[str, float] = {}
    ctx = _Context({}, {}, base, cache)
    for c in claims:
        if c.get("kind", "value") != "value":
            continue
        if "value_from" in c:
            row = _resolve_value_from(c, ctx, studies, needs_set)
            if row is not None:
                rows.append(row)
                continue
        row = _evaluate_value(c, studies, scale, base, cache, needs_set)
        if row["status"] in (*PASSED, "differs"):  # computed from real inputs at the claim's scale
            computed[c["id"]] = row["reproduced_value"]
        rows.append(row)
    values = {c["id"]: c for c in claims if c.get("kind", "value") == "value"}
    for c in claims:
        if c.get("kind") == "consistency":
            rows.append(_evaluate_consistency(c, values, computed, studies, base, needs_set))
    order = {c["id"]: i for i, c in enumerate(claims)}
    rows.sort(key=lambda r: order[r["id"]])
    return pd.DataFrame(rows, columns=COLUMNS)


def _resolve_value_from(c: dict, ctx: "_Context", studies, needs_set) -> dict | None:
    """Set ``c["value"]`` from the input table ``value_from`` names (None: done, evaluate the
    claim); else the claim's not-computable row."""
    vf = c["value_from"]
    try:
        if c["paper"] not in studies or not _needs_ok(c, needs_set):
            raise _Missing(f"the real input of config key '{c['needs']}', which this config does not set "
                           "(config/real-data.yaml sets it)")
        value = ctx.table(vf["result"], vf["column"], vf.get("where") or {})
        unit = vf.get("unit") or ctx.cell(vf["result"], "unit", vf.get("where") or {}) or c["unit"]
        c["value"] = convert(value, unit, c["unit"])
        problems = band_problems(c)
        if not problems:
            return None
        reason = f"the band around the authors' value {c['value']:g} is not honest: {'; '.join(problems)}"
    except _Missing as m:
        reason = f"the stated value comes from the authors' data: needs {m.args[0]}"
    return {"id": c["id"], "kind": "value", "paper": c["paper"], "place": c["place"], "statement": c["statement"],
            "unit": c["unit"], "paper_value": c.get("value", math.nan), "reproduced_value": math.nan,
            "tolerance": "", "result": f"{c['result']}:{c['column']}", "status": "not computable",
            "reason": reason, "fact": c.get("fact", c["id"]), "evidence": c.get("evidence", "primary")}


def _evaluate_value(c: dict, studies, scale, base, cache, needs_set=None) -> dict:
    lo, hi = band(c)
    row = {"id": c["id"], "kind": "value", "paper": c["paper"], "place": c["place"], "statement": c["statement"],
           "unit": c["unit"], "paper_value": c["value"], "reproduced_value": math.nan,
           "tolerance": f"[{lo:g}, {hi:g}] ({c['basis']})", "result": f"{c['result']}:{c['column']}"}
    status, reason = None, ""
    if c["paper"] not in studies:
        status, reason = "not computable", f"study {c['paper']!r} is not in config 'studies'"
    elif not _needs_ok(c, needs_set):
        status, reason = "not computable", (f"needs the real input of config key '{c['needs']}', which this "
                                            "config does not set (config/real-data.yaml sets it)")
    else:
        p = Path(base) / c["result"]
        if not p.exists():
            status, reason = "not computable", f"{c['result']} was not produced by this run"
        else:
            df = cache.setdefault(c["result"], _read_table(p))
            sidecar = read_sidecar(p)
            sel = select(df, c.get("where"))
            if c["column"] not in df.columns and list(df.columns) == ["note"] and len(df) == 1:
                # a table that says why it was not computed (e.g. no annotation file configured)
                status, reason = "not computable", f"{c['result']}: {df['note'].iloc[0]}"
            elif c["column"] not in df.columns or len(sel) != 1:
                status = "not computable"
                reason = f"{len(sel)} rows match {c.get('where')} in {c['result']} (need exactly 1)"
            else:
                val = sel.iloc[0][c["column"]]
                try:
                    val = convert(float(val), c["result_unit"], c["unit"])
                except (TypeError, ValueError):
                    pass
                row["reproduced_value"] = val
                if sidecar.get("synthetic"):
                    keys = ", ".join(sidecar.get("synthetic_inputs") or []) or "an input table"
                    status, reason = SYNTHETIC_STATUS, f"computed from synthetic input(s): {keys}"
                elif isinstance(val, float) and math.isnan(val):
                    status, reason = "not computable", "the result is NaN with these inputs"
                elif c.get("scale", "paper") == "paper" and scale != "paper":  # `any`: real inputs, any scale
                    status, reason = "not computable", "needs the paper-scale inputs (this run uses demo inputs)"
                else:
                    status, reason = _judge(val, c)
                    if status == "reproduced":
                        status = EVIDENCE[c.get("evidence", "primary")]
    row["status"], row["reason"] = status, reason
    row["fact"], row["evidence"] = c.get("fact", c["id"]), c.get("evidence", "primary")
    return row


def select(df: pd.DataFrame, where: dict | None) -> pd.DataFrame:
    sel = df
    for k, v in (where or {}).items():
        if k not in sel.columns:
            return sel.iloc[0:0]
        sel = sel[sel[k].astype(str) == str(v)]
    return sel


def _judge(val: Any, c: dict) -> tuple[str, str]:
    target = c["value"]
    if not isinstance(val, (int, float)) or not isinstance(target, (int, float)):
        return ("reproduced", "") if str(val) == str(target) else ("differs", "")
    lo, hi = band(c)
    if is_signed(c) and target != 0 and (val > 0) != (target > 0):
        return "differs", f"opposite sign: {val:.6g} vs the paper's {target:g}"
    if _snap(lo) <= _snap(val) <= _snap(hi):  # exact on 15 significant digits: no edge epsilon
        return "reproduced", ""
    return "differs", f"{val:.6g} outside [{lo:g}, {hi:g}]"


# ---- consistency checks ----

_FUNCS = {
    "abs": abs, "min": min, "max": max, "round": round, "int": int, "sum": lambda *a: sum(a[0] if len(a) == 1 else a),
    "mean": lambda *a: (lambda xs: sum(xs) / len(xs))(list(a[0]) if len(a) == 1 else list(a)),
    "approx": lambda a, b, tol: abs(_snap(a) - _snap(b)) <= _snap(tol),
    "wilcoxon_min_p": lambda n, two_sided=True: (2.0 if two_sided else 1.0) / 2 ** int(n),
}
_OPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
        ast.Div: lambda a, b: a / b, ast.Pow: lambda a, b: a ** b, ast.Mod: lambda a, b: a % b}
_CMP = {ast.Eq: ("==", lambda a, b: _snap(a) == _snap(b)), ast.NotEq: ("!=", lambda a, b: _snap(a) != _snap(b)),
        ast.Lt: ("<", lambda a, b: _snap(a) < _snap(b)), ast.LtE: ("<=", lambda a, b: _snap(a) <= _snap(b)),
        ast.Gt: (">", lambda a, b: _snap(a) > _snap(b)), ast.GtE: (">=", lambda a, b: _snap(a) >= _snap(b))}


def _snap(x) -> Decimal:
    """``x`` as a decimal of 15 significant digits (what a float holds): the binary noise of float
    arithmetic (0.1 + 0.2, 0.395 x 100) goes, and comparisons are then exact decimal ones; no
    band is widened by an epsilon (a value 1e-12 beyond a band's edge is outside it)."""
    return Decimal(f"{float(x):.15g}")


def half_unit(c: dict) -> float:
    """Half a unit of the last digit a value claim's number is stated to: the claim's tolerance
    for a rounding band, else, for a number read from the authors' data, half its ``value_from.stated_to``
    (the data state "15.0%": 0.1), else from the decimals of its value (36.1 -> 0.05, 24 -> 0.5)."""
    if c.get("basis") == "rounding" and "tolerance" in c:
        return float(c["tolerance"])
    if "stated_to" in c.get("value_from", {}):
        return float(c["value_from"]["stated_to"]) / 2
    v = c["value"]
    if isinstance(v, int):
        return 0.5
    text = repr(float(v))
    decimals = len(text.split(".")[1]) if "." in text and "e" not in text else 0
    return 0.5 * 10 ** -decimals


def _parse_check(check: str) -> ast.Expression:
    tree = ast.parse(check, mode="eval")
    for node in ast.walk(tree):
        ok = isinstance(node, (ast.Expression, ast.BinOp, ast.UnaryOp, ast.USub, ast.UAdd, ast.Compare, ast.Call,
                               ast.Name, ast.Load, ast.Constant, ast.List, ast.Tuple, ast.BoolOp, ast.And, ast.Or,
                               ast.keyword, *_OPS, *_CMP))
        if not ok:
            raise ClaimsError(f"{type(node).__name__} is not allowed in a check")
        if isinstance(node, ast.Call):
            name = getattr(node.func, "id", None)
            if name not in (*_FUNCS, *_REFS, "half_unit"):
                raise ClaimsError(f"unknown function {name!r}")
        if isinstance(node, ast.Name) and node.id not in (*_FUNCS, *_REFS, "half_unit", "True", "False"):
            raise ClaimsError(f"unknown name {node.id!r}")
    return tree


_REFS = ("paper", "computed", "value")


def _references(check: str) -> list[str]:
    """Claim ids a check reads (``paper`` / ``computed``)."""
    refs = []
    for node in ast.walk(_parse_check(check)):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("paper", "computed"):
            if len(node.args) != 1 or not isinstance(node.args[0], ast.Constant):
                raise ClaimsError(f"{node.func.id}() takes one claim id in quotes")
            refs.append(node.args[0].value)
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "half_unit":
            if not node.args or not all(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in node.args):
                raise ClaimsError("half_unit() takes claim ids in quotes")
            refs += [a.value for a in node.args]
    return refs


def _half_unit_refs(check: str) -> list[str]:
    return [a.value for node in ast.walk(_parse_check(check)) if isinstance(node, ast.Call)
            and getattr(node.func, "id", None) == "half_unit" for a in node.args]


def check_tables(check: str) -> list[str]:
    """Result files a check reads with ``value('<result>', '<column>', key=value, ...)``."""
    out = []
    for node in ast.walk(_parse_check(check)):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "value":
            texts = [*node.args, *[k.value for k in node.keywords]]
            if len(node.args) != 2 or not all(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in texts):
                raise ClaimsError("value() takes '<result file>', '<column>' and key='row value' selectors, "
                                  "all in quotes")
            out.append(node.args[0].value)
    return out


class _Missing(Exception):
    pass


class _Context:
    """What a check reads: paper values, computed values of value claims, result tables."""

    def __init__(self, values: dict, computed: dict, base: str | Path = ".", cache: dict | None = None):
        self.values, self.computed, self.base = values, computed, Path(base)
        self.cache = {} if cache is None else cache

    def cell(self, result: str, column: str, where: dict) -> str | None:
        """A text cell of a row that ``table`` read before (None when there is no such column)."""
        df = self.cache[result]
        return str(select(df, where).iloc[0][column]) if column in df.columns else None

    def table(self, result: str, column: str, where: dict) -> float:
        p = self.base / result
        if not p.exists():
            raise _Missing(f"{result}, which this run did not produce")
        if read_sidecar(p).get("synthetic"):
            raise _Missing(f"{result} computed from synthetic inputs")
        df = self.cache.setdefault(result, _read_table(p))
        sel = select(df, where)
        if column not in df.columns or len(sel) != 1:
            raise _Missing(f"one row of {result} with {where} (found {len(sel)})")
        return float(sel.iloc[0][column])


def _eval(node, ctx: _Context):
    if isinstance(node, ast.Expression):
        return _eval(node.body, ctx)
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_eval(e, ctx) for e in node.elts]
    if isinstance(node, ast.UnaryOp):
        v = _eval(node.operand, ctx)
        return -v if isinstance(node.op, ast.USub) else v
    if isinstance(node, ast.BinOp):
        return _OPS[type(node.op)](_eval(node.left, ctx), _eval(node.right, ctx))
    if isinstance(node, ast.BoolOp):
        vals = [_eval(v, ctx) for v in node.values]
        return all(vals) if isinstance(node.op, ast.And) else any(vals)
    if isinstance(node, ast.Compare):
        left = _eval(node.left, ctx)
        for op, right_node in zip(node.ops, node.comparators):
            right = _eval(right_node, ctx)
            if not _CMP[type(op)][1](left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.Call):
        name = node.func.id
        if name == "paper":
            claim = ctx.values[node.args[0].value]
            if "value" not in claim:  # a number of the authors' released data, not read (input not set)
                raise _Missing(f"the authors' data value of {claim['id']} (config key '{claim['needs']}')")
            return float(claim["value"])
        if name == "computed":
            ref = node.args[0].value
            if ref not in ctx.computed:
                raise _Missing(f"the computed value of {ref}, which this run did not produce")
            return ctx.computed[ref]
        if name == "half_unit":  # the rounding of each stated number, summed
            return sum(half_unit(ctx.values[a.value]) for a in node.args)
        if name == "value":
            return ctx.table(node.args[0].value, node.args[1].value, {k.arg: k.value.value for k in node.keywords})
        kwargs = {k.arg: _eval(k.value, ctx) for k in node.keywords}
        return _FUNCS[name](*[_eval(a, ctx) for a in node.args], **kwargs)
    raise ClaimsError(f"cannot evaluate {ast.dump(node)}")


def _fmt(v) -> str:
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, float):
        return f"{v:.6g}"
    if isinstance(v, list):
        return "[" + ", ".join(_fmt(x) for x in v) + "]"
    return str(v)


class _Inline(ast.NodeTransformer):
    """``paper('<id>')`` as the number it stands for (an operand that names many numbers is read as them)."""

    def __init__(self, ctx):
        self.ctx = ctx

    def visit_Call(self, node):
        self.generic_visit(node)
        if getattr(node.func, "id", None) in ("paper", "computed", "value"):
            v = _eval(node, self.ctx)
            return ast.copy_location(ast.Constant(float(_fmt(v)) if isinstance(v, float) else v), node)
        return node


def _show(o, ctx) -> str:
    """An operand as the check writes it, or, when it names more than three numbers (or several in
    a long text), with the numbers."""
    text = ast.unparse(o)
    refs = sum(isinstance(n, ast.Call) and getattr(n.func, "id", None) in _REFS for n in ast.walk(o))
    if refs > 3 or (refs > 1 and len(text) > 200):
        text = ast.unparse(_Inline(ctx).visit(copy.deepcopy(o)))
    return text


def arithmetic(check: str, values: dict, computed: dict, base: str | Path = ".") -> tuple[bool, str]:
    """(holds, the arithmetic shown): each operand of the top-level comparison with its value (an
    operand naming more than three numbers shows them rather than their claim ids)."""
    ctx = _Context(values, computed, base)
    tree = _parse_check(check)
    body = tree.body
    parts = []
    if isinstance(body, ast.Compare):
        operands = [body.left, *body.comparators]
        shown = [f"{_show(o, ctx)} = {_fmt(_eval(o, ctx))}"
                 if not isinstance(o, ast.Constant) else _fmt(o.value) for o in operands]
        ops = [_CMP[type(op)][0] for op in body.ops]
        parts = [shown[0]]
        for op, s in zip(ops, shown[1:]):
            parts += [op, s]
    elif isinstance(body, ast.Call):  # e.g. approx(a, b, tol): each argument with its value
        args = [f"{_show(a, ctx)} = {_fmt(_eval(a, ctx))}" if not isinstance(a, ast.Constant) else _fmt(a.value)
                for a in [*body.args, *[k.value for k in body.keywords]]]
        parts = [f"{body.func.id}({'; '.join(args)})"]
    holds = bool(_eval(tree, ctx))
    text = " ".join(parts) if parts else f"{check} = {_fmt(holds)}"
    return holds, f"{text} -> {'holds' if holds else 'does not hold'}"


def _evaluate_consistency(c: dict, values: dict, computed: dict, studies, base=".", needs_set=None) -> dict:
    row = {"id": c["id"], "kind": "consistency", "paper": c["paper"], "place": c["place"],
           "statement": c["statement"], "unit": c.get("unit", ""), "paper_value": "", "reproduced_value": math.nan,
           "tolerance": "", "result": c["check"], "fact": c.get("fact", c["id"]),
           "evidence": c.get("evidence") or _consistency_evidence(c, [])}
    if not _needs_ok(c, needs_set):
        row["status"] = "not computable"
        row["reason"] = (f"needs the real input of config key '{c['needs']}', which this config does not set "
                         "(config/real-data.yaml sets it)")
        return row
    try:
        if "readings" in c:
            row["status"], row["reason"] = _evaluate_readings(c, values, computed, base)
            return row
        holds, shown = arithmetic(c["check"], values, computed, base)
        row["status"] = "consistent" if holds else "inconsistent"
        row["reason"] = shown
    except _Missing as m:
        row["status"] = "not computable"
        row["reason"] = f"needs {m.args[0]}"
    return row


def _evaluate_readings(c: dict, values: dict, computed: dict, base) -> tuple[str, str]:
    """consistent / inconsistent when every reading agrees, else ``conditional``; the reason shows
    each reading's arithmetic and names the assumption."""
    results = {name: arithmetic(chk, values, computed, base) for name, chk in c["readings"].items()}
    held = [n for n, (h, _) in results.items() if h]
    shown = " | ".join(f"{n}: {text}" for n, (_, text) in results.items())
    if len(held) == len(results):
        return "consistent", f"every reading holds: {shown}"
    if not held:
        return "inconsistent", f"no reading holds: {shown}"
    failed = [n for n in results if n not in held]
    return CONDITIONAL_STATUS, (f"holds if {', '.join(held)}, not if {', '.join(failed)} (the paper does not say: "
                                f"{c['assumption']}): {shown}")


def reads_real_data(c: dict) -> bool:
    """A consistency check that reads real data (a computed value or a result cell), not only the
    paper's numbers."""
    return bool(c.get("needs")) or bool(re.search(r"\b(?:computed|value)\(", c["check"]))


# a fact takes the least favourable status of its claims, in this order
_FACT_ORDER = ("differs", "not computable", SYNTHETIC_STATUS, DESIGN_STATUS, FIGURE_DATA_STATUS, "reproduced")


def facts_table(table: pd.DataFrame) -> pd.DataFrame:
    """One row per fact of the value claims in ``table`` (a scorecard): its status (the least
    favourable of its claims'), the number of claims (rows) and their places (its mentions)."""
    rows = []
    vals = table[table["kind"] == "value"]
    for fact, g in vals.groupby("fact", sort=False):
        status = next(s for s in _FACT_ORDER if s in set(g["status"]))
        bad = g[g["status"] == status]
        rows.append({"fact": fact, "paper": g["paper"].iloc[0], "status": status,
                     "claims": len(g), "statement": g["statement"].iloc[0],
                     "places": "; ".join(dict.fromkeys(g["place"].astype(str))),
                     "reason": "" if status in PASSED else str(bad["reason"].iloc[0])})
    return pd.DataFrame(rows, columns=["fact", "paper", "status", "claims", "statement", "places", "reason"])


def summary_table(table: pd.DataFrame) -> pd.DataFrame:
    """Counts per paper: distinct facts per status (not computable: per reason), and the consistency
    checks per status, those that read real data apart from those that are the paper's arithmetic."""
    facts = facts_table(table)
    rows = []
    for paper in sorted(set(table["paper"])):
        f = facts[facts["paper"] == paper]
        for status, g in f.groupby("status", sort=False):
            if status == "not computable":
                for reason, h in g.groupby(g["reason"].map(_reason_class)):
                    rows.append({"paper": paper, "kind": "facts", "status": status, "reason": reason,
                                 "count": len(h), "rows": int(h["claims"].sum())})
            else:
                rows.append({"paper": paper, "kind": "facts", "status": status, "reason": "",
                             "count": len(g), "rows": int(g["claims"].sum())})
        cons = table[(table["paper"] == paper) & (table["kind"] == "consistency")]
        for (ev, status), g in cons.groupby(["evidence", "status"]):
            rows.append({"paper": paper, "kind": f"consistency checks ({ev})", "status": status, "reason": "",
                         "count": len(g), "rows": len(g)})
    return pd.DataFrame(rows, columns=["paper", "kind", "status", "reason", "count", "rows"])


def _reason_class(reason: str) -> str:
    """The reason of a not-computable claim without its particulars (values, row counts)."""
    for pattern, label in ((r"^study ", "study not configured"), (r"^needs the real input of config key '([^']+)'",
                           r"real input \1 not configured"), (r"was not produced", "result not produced"),
                           (r"paper-scale inputs", "needs the paper-scale inputs"), (r"rows match", "row missing"),
                           (r"NaN", "NaN with these inputs")):
        m = re.search(pattern, reason)
        if m:
            return m.expand(label) if "\\" in label else label
    return reason


def errata_table(table: pd.DataFrame, claims: list[dict]) -> pd.DataFrame:
    """The papers' own inconsistencies: every consistency check of ``table`` that does not hold (or
    holds only under one reading), with its arithmetic, its places in the paper and what the
    workflow does about it (the claim's ``resolution``: which value it uses, and why)."""
    res = {c["id"]: c.get("resolution", "") for c in claims}
    bad = table[(table["kind"] == "consistency") & table["status"].isin(["inconsistent", CONDITIONAL_STATUS])]
    out = bad[["id", "paper", "place", "statement", "status", "reason"]].rename(columns={"reason": "arithmetic"})
    out = out.assign(resolution=[res.get(i) or "not recorded" for i in out["id"]])
    return out.reset_index(drop=True)


def derived_errata(derived: pd.DataFrame, resolutions: dict[str, str]) -> pd.DataFrame:
    """The checks derived from the inventory (``claims_derived.tsv``) that do not hold or hold only
    under one reading, as errata rows; ``resolutions``: {"<rule> | <number key>": what the workflow does}."""
    bad = derived[derived["status"].isin(["does not hold", "conditional"])]
    status = {"does not hold": "inconsistent", "conditional": CONDITIONAL_STATUS}
    rows = [{"id": f"derived: {r.rule} | {r.key}", "paper": r.paper, "place": f"{r.key} ({r.place})",
             "statement": f"derived check '{r.rule}' of the inventory", "status": status[r.status],
             "arithmetic": r.arithmetic, "resolution": resolutions.get(f"{r.rule} | {r.key}") or "not recorded"}
            for r in bad.itertuples()]
    return pd.DataFrame(rows, columns=["id", "paper", "place", "statement", "status", "arithmetic", "resolution"])
