"""The errata page: every finding about the papers once, with the checks that support it.

A *check* is one comparison that could show a paper wrong: a consistency claim of
``config/claims.yaml`` (the paper's arithmetic, the paper against the authors' figure data or
against real data), a value claim on a real input (the paper against a released data file), a
check derived from the inventory of printed numbers (``claims_derived.tsv``), a statement in words
checked against its table or data (``claims_statements.tsv``) and a disagreement between a paper's
text and its authors' code (``text_vs_code.tsv``).  Each gets an id (the claim id; ``derived:
<rule> | <number key>``; ``statement: <rule> | <sentence key>``; ``text vs code: <entry id>``), a
status (``holds``, ``does not hold``, ``conditional``, ``undecided``, ``not computable``, ``text
and code disagree``) and, for the checks that cannot fail (a derived check of a number against its
own claim), the reason they are coverage rather than evidence.

A *finding* is one statement of a paper that a check does not support: section ``findings`` of
``config/claims.yaml`` groups the ids (shell patterns) of the checks that bear on one statement
(``{finding id: {statement, checks: [...], resolution}}``); a failing check in no group is a finding
of its own.  A finding has one status, that of its failing checks (``inconsistent`` when no
reading of the text holds, ``conditional`` when one does, ``text and code disagree``), its places,
each failing check's arithmetic and the checks of its group that hold, and what the workflow does
about it (the group's ``resolution``, else the first of its checks').
"""

from __future__ import annotations

import fnmatch
import re
from pathlib import Path

import pandas as pd

from .core.yamlload import safe_load

CHECK_COLUMNS = ["check", "source", "paper", "place", "statement", "status", "arithmetic", "resolution", "coverage"]
FINDING_COLUMNS = ["finding", "paper", "kind", "status", "place", "statement", "evidence", "checks", "resolution"]
CHECK_STATUSES = ("holds", "does not hold", "conditional", "undecided", "not computable", "text and code disagree")
FAILING = ("does not hold", "conditional", "text and code disagree")
# the status of a finding from that of its failing checks (the least favourable, in this order)
FINDING_STATUS = {"does not hold": "inconsistent", "conditional": "conditional",
                  "text and code disagree": "text and code disagree"}
SOURCES = {  # what a check compares, in words (the finding's kind)
    "paper arithmetic": "paper arithmetic",
    "authors' figure data": "paper vs the authors' figure data",
    "real data": "paper vs real data",
    "released data": "paper vs a released data file",
    "derived": "printed numbers (derived from the inventory)",
    "statement": "statement in words",
    "text vs code": "paper text vs the authors' code",
}


class FindingsError(ValueError):
    pass


def load_findings(path: str | Path) -> dict[str, dict]:
    """Section ``findings`` of a claims file: {finding id: {statement, checks, resolution}}, checked."""
    data = safe_load(Path(path).read_text()) or {}
    groups = data.get("findings") or {}
    for fid, spec in groups.items():
        if not isinstance(spec, dict) or not spec.get("statement") or not isinstance(spec.get("checks"), list) \
                or not spec["checks"]:
            raise FindingsError(f"{path}: findings.{fid}: needs statement and checks (a list of check ids or patterns)")
        unknown = set(spec) - {"statement", "checks", "resolution"}
        if unknown:
            raise FindingsError(f"{path}: findings.{fid}: unknown key(s) {sorted(unknown)}")
    return groups


# ---- checks from each source ----

def consistency_checks(table: pd.DataFrame, claims: list[dict]) -> pd.DataFrame:
    """The consistency claims of a scorecard as checks; the value claims on a real input (not a value
    of the authors' figure data compared with this workflow's run) as checks of the paper against
    the released data file or the authors' figure data it reads."""
    by_id = {c["id"]: c for c in claims}
    status = {"consistent": "holds", "inconsistent": "does not hold", "conditional": "conditional",
              "reproduced": "holds", "design check": "holds", "matches the authors' figure data": "holds",
              "differs": "does not hold"}
    rows = []
    for r in table.itertuples():
        c = by_id.get(r.id, {})
        real_value = r.kind == "value" and c.get("needs") and "value_from" not in c
        if r.kind != "consistency" and not real_value:
            continue
        source = r.evidence if r.kind == "consistency" else (
            "authors' figure data" if c.get("evidence") == "authors-figure-data" else "released data")
        rows.append({"check": r.id, "source": source,
                     "paper": r.paper, "place": r.place, "statement": r.statement,
                     "status": status.get(r.status, "not computable"),
                     "arithmetic": r.reason if r.kind == "consistency" else
                     (f"the paper states {r.paper_value:g}; the data give {r.reproduced_value:g} "
                      f"(band {r.tolerance})" if r.status != "not computable" else r.reason),
                     "resolution": c.get("resolution", ""), "coverage": ""})
    return pd.DataFrame(rows, columns=CHECK_COLUMNS)


def derived_check_rows(derived: pd.DataFrame, resolutions: dict[str, str]) -> pd.DataFrame:
    """The checks derived from the inventory (``claims_derived.tsv``); ``resolutions``: {"<rule> |
    <number key>": what the workflow does}."""
    rows = [{"check": f"derived: {r.rule} | {r.key}", "source": "derived", "paper": r.paper,
             "place": f"{r.key} ({r.place})", "statement": f"derived check '{r.rule}' of the inventory",
             "status": r.status, "arithmetic": r.arithmetic,
             "resolution": resolutions.get(f"{r.rule} | {r.key}", ""),
             "coverage": getattr(r, "coverage", "") or ""} for r in derived.itertuples()]
    return pd.DataFrame(rows, columns=CHECK_COLUMNS)


def statement_check_rows(statements: pd.DataFrame) -> pd.DataFrame:
    """The statements in words checked against their data (``claims_statements.tsv``)."""
    rows = [{"check": f"statement: {r.rule} | {r.key}", "source": "statement", "paper": r.paper,
             "place": f"{r.key} ({r.place})", "statement": r.sentence, "status": r.status,
             "arithmetic": r.evidence, "resolution": r.resolution, "coverage": ""} for r in statements.itertuples()]
    return pd.DataFrame(rows, columns=CHECK_COLUMNS)


def text_vs_code_check_rows(tvc: pd.DataFrame) -> pd.DataFrame:
    """Each disagreement between a paper's text and its authors' code (``text_vs_code.tsv``): both
    readings, the code cited, the default and the config key that selects the other reading, and
    each reading's value where this run computed it."""
    rows = []
    for r in tvc.itertuples():
        setting = (f"; config {r.key}: code = {r.setting_code or '-'}, text = {r.setting_text or '-'}"
                   if r.key else "; no config key selects the other reading")
        values = (f"values: code {r.value_code or '-'}, text {r.value_text or '-'} ({r.computed})"
                  + (f"; SYNTHETIC inputs: {r.synthetic_inputs}" if r.synthetic_inputs else ""))
        rows.append({"check": f"text vs code: {r.id}", "source": "text vs code", "paper": r.study,
                     "place": r.place, "statement": r.topic, "status": "text and code disagree",
                     "arithmetic": f"text: {r.text} | code ({r.code_ref}): {r.code} | {values}",
                     "resolution": f"The workflow computes the {r.default} reading by default{setting}"
                                   + (f". {r.why}" if r.why else "."),
                     "coverage": ""})
    return pd.DataFrame(rows, columns=CHECK_COLUMNS)


# ---- findings ----

def group_of(checks: pd.DataFrame, groups: dict[str, dict]) -> dict[str, str]:
    """{check id: finding id} from the patterns of section ``findings``; a check in two groups is an error."""
    out: dict[str, str] = {}
    for fid, spec in groups.items():
        for pat in spec["checks"]:
            for cid in (c for c in checks["check"] if fnmatch.fnmatchcase(c, pat)):
                if out.get(cid, fid) != fid:
                    raise FindingsError(f"check {cid!r} is in findings {out[cid]} and {fid}")
                out[cid] = fid
    return out


def unmatched_patterns(checks: pd.DataFrame, groups: dict[str, dict]) -> list[str]:
    """``findings.<id>: <pattern>`` for each pattern that matches no check (a stale entry)."""
    ids = list(checks["check"])
    return [f"findings.{fid}: {pat!r}" for fid, spec in groups.items() for pat in spec["checks"]
            if not any(fnmatch.fnmatchcase(i, pat) for i in ids)]


def findings_table(checks: pd.DataFrame, groups: dict[str, dict]) -> pd.DataFrame:
    """One row per finding: the checks that do not hold, hold only under one reading, or record a
    disagreement of text and code, grouped by section ``findings``; coverage checks never count."""
    checks = checks[checks["coverage"].fillna("") == ""]
    gid = group_of(checks, groups)
    failing = checks[checks["status"].isin(FAILING)]
    order: dict[str, list] = {}
    for r in failing.itertuples():
        order.setdefault(gid.get(r.check, r.check), []).append(r)
    rows = []
    for fid, bad in order.items():
        spec = groups.get(fid, {})
        members = checks[[gid.get(c) == fid for c in checks["check"]]] if spec else checks.iloc[0:0]
        held = [c for c, s in zip(members["check"], members["status"]) if s == "holds"]
        worst = next(s for s in FAILING if any(r.status == s for r in bad))
        resolution = spec.get("resolution") or next((r.resolution for r in bad if r.resolution), "") \
            or next((r for r in members["resolution"] if r), "")
        evidence = " || ".join(f"{r.check}: {r.arithmetic}" for r in bad)
        checks_text = "; ".join(f"{r.check} ({r.status})" for r in bad)
        if held:
            checks_text += f"; of the same finding, {len(held)} hold: {', '.join(held)}"
        rows.append({
            "finding": fid, "paper": "; ".join(dict.fromkeys(r.paper for r in bad)),
            "kind": "; ".join(dict.fromkeys(SOURCES.get(r.source, r.source) for r in bad)),
            "status": FINDING_STATUS[worst], "place": "; ".join(dict.fromkeys(str(r.place) for r in bad)),
            "statement": spec.get("statement") or bad[0].statement, "evidence": evidence, "checks": checks_text,
            "resolution": " ".join(str(resolution).split()) or "not recorded"})
    return pd.DataFrame(rows, columns=FINDING_COLUMNS)


def disagreeing_findings(checks: pd.DataFrame, groups: dict[str, dict]) -> list[str]:
    """Findings whose failing checks (the paper's own statements, not text vs code) disagree in
    status: one statement cannot be both inconsistent and conditional (make the readings explicit,
    or split the finding)."""
    checks = checks[(checks["coverage"].fillna("") == "") & checks["status"].isin(("does not hold", "conditional"))]
    gid = group_of(checks, groups)
    by: dict[str, set] = {}
    for c, s in zip(checks["check"], checks["status"]):
        by.setdefault(gid.get(c, c), set()).add(s)
    return [f"{f}: {sorted(s)}" for f, s in by.items() if len(s) > 1]


def summary(checks: pd.DataFrame, findings: pd.DataFrame) -> pd.DataFrame:
    """Counts per paper: findings per kind and status; the checks that could have failed per source
    and status; the checks that could not fail (coverage), apart."""
    rows = []
    for paper in sorted(set(checks["paper"]) | set(findings["paper"])):
        f = findings[findings["paper"] == paper]
        for (kind, status), g in f.groupby(["kind", "status"]):
            rows.append({"paper": paper, "kind": f"findings ({kind})", "status": status, "reason": "",
                         "count": len(g), "rows": sum(len(re.findall(r" \((?:does not hold|conditional|text and "
                                                                       r"code disagree)\)", x)) for x in g["checks"])})
        c = checks[checks["paper"] == paper]
        cov = c["coverage"].fillna("") != ""
        for (source, status), g in c[~cov].groupby(["source", "status"]):
            rows.append({"paper": paper, "kind": f"checks that could fail ({SOURCES.get(source, source)})",
                         "status": status, "reason": "", "count": len(g), "rows": len(g)})
        for (source, reason), g in c[cov].groupby(["source", "coverage"]):
            rule = re.sub(r"^derived: ([^|]+) \|.*", r"\1", g["check"].iloc[0]).strip()
            rows.append({"paper": paper, "kind": f"coverage: checks that cannot fail ({rule})",
                         "status": "holds" if (g["status"] == "holds").all() else "; ".join(sorted(set(g["status"]))),
                         "reason": reason, "count": len(g), "rows": len(g)})
    return pd.DataFrame(rows, columns=["paper", "kind", "status", "reason", "count", "rows"])


def page_notes(checks: pd.DataFrame, findings: pd.DataFrame) -> list[str]:
    """What the errata page says above its table: findings per status, and which checks could have
    failed (the evidence) and which could not (coverage)."""
    cov = checks["coverage"].fillna("") != ""
    could = checks[~cov]
    st = could["status"].value_counts()
    per = ", ".join(f"{n} {s}" for s, n in findings["status"].value_counts().items()) or "none"
    by_paper = "; ".join(f"{p}: {n}" for p, n in findings["paper"].value_counts().sort_index().items())
    return [
        f"{len(findings)} findings ({per}; {by_paper or 'no paper'}): each statement of a paper once, with "
        "every check that bears on it.",
        f"Evidence: {len(could)} checks that could have failed "
        f"({', '.join(f'{n} {s}' for s, n in st.items())}); the findings are those that do not hold, "
        "hold under one reading only, or record a disagreement between a paper's text and its authors' code.",
        f"Coverage, not evidence: {int(cov.sum())} checks that could not fail (a printed number against its "
        "own claim's unit or range, two printed numbers linked to a claim because each equals it); they show "
        "the numbers are linked, never that the papers are right, and are no findings.",
    ]
