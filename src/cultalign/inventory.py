"""Inventory of every number the three papers state, each with the claims that check it or the
reason it has none.

The extractor (``extract``) finds every number written in digits in a paper's text (body, tables,
captions, appendices, references) with its location: line, column, section (the last numbered
heading before it), the table or figure it belongs to (a tab-separated table block takes the
``Table N`` of the caption that follows it; a caption's numbers take its own) and the words
around it.  Number words ("three", "five") are not numbers in this sense.

``config/claims-inventory.yaml`` classifies them, in this order:

1. ``hand``: entries for single numbers, by key ``"<paper> §<section> <number> #<k>"`` (the k-th
   time that number is written in that section), each with ``claims`` (ids) or a ``reason``;
2. ``structural`` rules: numbers that are not statements at all (links, citation years in the
   reference list, section/table/figure/equation numbers, parts of names such as GPT-4o);
3. claim links: a value claim of the same paper whose ``value`` is the number as printed, and
   whose ``place`` names the number's section, table or figure (rule ``claim at its place``), or
   any place when the number is distinctive (three digits or more: rule ``claim elsewhere``);
4. ``wording`` rules: numbers that are statements but no result (example wording, prompt text,
   enumerations, design settings the workflow takes as configuration, ...).

A rule is a mapping of conditions, all of which must hold: ``paper``, ``section`` (regex, full
match of the section id), ``token`` (regex searched in the whitespace-delimited token holding
the number), ``number`` (regex, full match of the number as printed), ``before`` / ``after``
(regex searched at the end of the 60 characters before / the start of the 60 after),
``place`` (regex, full match of the table/figure the number belongs to), ``table`` (true: a
cell of a tab-separated table; false: anywhere else).  A number no entry or
rule covers is a coverage error (``coverage_problems``), as is a hand entry no number matches.
"""

from __future__ import annotations

import fnmatch
import math
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .core.yamlload import safe_load
from .inventory_derived import derived_rows

NUMBER = re.compile(
    r"(?<![\w.,])\d+(?:\.\d+)?e[-\u2212+]?\d+(?!\w|\.\d)"   # scientific notation: 1e-300
    r"|(?<![\w.,])\d+(?:\.\d+){2,}(?![\w.])"            # a dotted label: 3.3.1
    r"|(?<![\w.,])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?%?"  # 2,633  39.5  75%
    r"|(?<![\w.,])\.\d+%?"                                  # .66
)
MINUS = "-\u2212\u2013"
HEADING_LINE = re.compile(r"(Appendix [A-Z]|[A-Z](?:\.\d+)+|\d+(?:\.\d+)*) +[A-Z&][^\t]{0,100}")
UNNUMBERED = ("Abstract", "References", "Limitations", "Acknowledgments", "Acknowledgements",
              "Ethical", "Ethics")
CAPTION = re.compile(r"(Table|Figure|Fig\.?) (\d+)[:.]")
PLACE_REF = re.compile(r"\b(Table|Figure|Fig\.?|Figs?)\s*\[?(\d+)")
CONDITIONS = ("paper", "section", "token", "number", "before", "after", "place", "table")


class InventoryError(ValueError):
    pass


@dataclass
class Mention:
    paper: str
    line: int
    column: int
    section: str
    place: str
    number: str
    value: float
    context: str
    before: str
    after: str
    token: str
    row: str = ""          # a table cell's row label (the line's first cell); "" outside tables
    cell: int = -1         # a table cell's column (0: the row label); -1 outside tables
    key: str = ""
    claims: list[str] = field(default_factory=list)
    reason: str = ""
    rule: str = ""


def parse_number(text: str) -> float:
    """The value of a number as printed; NaN for a dotted label such as 3.3.1."""
    if text.count(".") > 1:
        return math.nan
    t = text.replace(",", "").rstrip("%").replace("e\u2212", "e-")
    neg = t[:1] in MINUS
    return -float(t[1:]) if neg else float(t)


def _sections(text: str) -> list[tuple[int, str]]:
    """(offset, section id) of every heading, in order."""
    out: list[tuple[int, str]] = [(0, "front")]
    md = list(re.finditer(r"(?:^|(?<=\s))#{1,6} +(Appendix [A-Z]\b|[A-Z](?:\.\d+)+\b|\d+(?:\.\d+)*\b|[A-Z][a-z]+)",
                          text))
    if md:
        for m in md:
            sid = m.group(1)
            if sid[0].isdigit() or sid.startswith("Appendix") or re.fullmatch(r"[A-Z](?:\.\d+)+", sid) \
                    or sid in UNNUMBERED or sid.startswith(UNNUMBERED):
                out.append((m.start(), sid))
        return out
    offset = 0
    for line in text.split("\n"):
        s = line.strip()
        m = HEADING_LINE.fullmatch(s)
        if m and len(s) < 110 and not s.endswith("."):
            out.append((offset, m.group(1)))
        elif s in UNNUMBERED or s == "References":
            out.append((offset, s))
        offset += len(line) + 1
    return out


def _table_places(text: str) -> list[tuple[int, int, str]]:
    """(start, end, 'Table N' / 'Figure N') of every tab-separated table block (named by the caption
    right after it, or right before) and every caption."""
    out = []
    lines = text.split("\n")
    starts, off = [], 0
    for line in lines:
        starts.append(off)
        off += len(line) + 1
    i = 0
    while i < len(lines):
        if "\t" in lines[i]:
            j = i
            while j + 1 < len(lines) and ("\t" in lines[j + 1] or not lines[j + 1].strip()):
                j += 1
            name = ""
            for k in list(range(j + 1, min(j + 4, len(lines)))) + list(range(i - 1, max(i - 4, -1), -1)):
                m = CAPTION.match(lines[k].strip())
                if m:
                    name = f"{'Table' if m.group(1) == 'Table' else 'Figure'} {m.group(2)}"
                    break
            out.append((starts[i], starts[j] + len(lines[j]), name or "table"))
            i = j + 1
            continue
        i += 1
    for m in re.finditer(r"(?:^|(?<=\s))(Table|Figure) (\d+): ", text):
        end = text.find("\n", m.end())
        end = min(end if end >= 0 else len(text), m.end() + 600)
        out.append((m.start(), end, f"{m.group(1)} {m.group(2)}"))
    return out


def extract(text: str, paper: str) -> list[Mention]:
    """Every number written in digits in ``text``, with its location and context."""
    sections = _sections(text)
    places = _table_places(text)
    line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
    mentions: list[Mention] = []
    seen: Counter = Counter()
    si = 0
    li = 0
    for m in NUMBER.finditer(text):
        start, number = m.start(), m.group()
        if start > 0 and text[start - 1] in MINUS and (start == 1 or text[start - 2] in " \t\n([=:;/$"):
            start -= 1
            number = text[start] + number
        while si + 1 < len(sections) and sections[si + 1][0] <= start:
            si += 1
        while li + 1 < len(line_starts) and line_starts[li + 1] <= start:
            li += 1
        section = sections[si][1]
        place = next((p for s, e, p in places if s <= start < e), "")
        line_start = line_starts[li]
        line_end = text.find("\n", start)
        line = text[line_start:line_end if line_end >= 0 else len(text)]
        row = line.split("\t", 1)[0].strip() if "\t" in line else ""
        cell = text[line_start:start].count("\t") if row else -1
        before = text[max(0, start - 60):start]
        after = text[m.end():m.end() + 60]
        ts = max(text.rfind(" ", 0, start), text.rfind("\n", 0, start), text.rfind("\t", 0, start)) + 1
        te_cands = [i for i in (text.find(" ", m.end()), text.find("\n", m.end()), text.find("\t", m.end())) if i >= 0]
        te = min(te_cands) if te_cands else len(text)
        ctx = " ".join(text[max(0, start - 80):m.end() + 80].split())
        seen[(section, number)] += 1
        mentions.append(Mention(
            paper=paper, line=li + 1, column=start - line_starts[li] + 1, section=section, place=place,
            number=number, value=parse_number(number), context=ctx, before=before, after=after,
            token=text[ts:te], row=row, cell=cell, key=f"{paper} §{section} {number} #{seen[(section, number)]}"))
    return mentions


# ---- classification ----

def load_inventory(path: str | Path) -> dict[str, Any]:
    data = safe_load(Path(path).read_text()) or {}
    for k in ("reasons", "papers", "structural", "wording"):
        if k not in data:
            raise InventoryError(f"{path}: missing section '{k}'")
    reasons = data["reasons"]
    for group in ("structural", "wording"):
        for i, r in enumerate(data[group]):
            if not r.get("name") or not r.get("reason"):
                raise InventoryError(f"{path}: {group}[{i}] needs name and reason")
            if r["reason"] not in reasons:
                raise InventoryError(f"{path}: {group}[{i}] ({r['name']}): unknown reason {r['reason']!r}")
            bad = set(r) - set(CONDITIONS) - {"name", "reason", "note"}
            if bad:
                raise InventoryError(f"{path}: {group}[{i}] ({r['name']}): unknown condition(s) {sorted(bad)}")
            for c in CONDITIONS:
                if c in r and c not in ("paper", "table"):
                    try:
                        re.compile(r[c])
                    except re.error as e:
                        raise InventoryError(f"{path}: {group}[{i}] ({r['name']}): bad regex {c}: {e}") from e
    hand = data.get("hand") or {}
    for key, entry in hand.items():
        if not isinstance(entry, dict) or not (entry.get("claims") or entry.get("reason")):
            raise InventoryError(f"{path}: hand entry {key!r} needs claims or a reason")
        if entry.get("reason") and entry["reason"] not in reasons:
            raise InventoryError(f"{path}: hand entry {key!r}: unknown reason {entry['reason']!r}")
    data["hand"] = hand
    return data


def rule_matches(rule: dict, m: Mention) -> bool:
    if "paper" in rule and m.paper != rule["paper"]:
        return False
    if "table" in rule and bool(m.row) != bool(rule["table"]):
        return False
    checks = (("section", m.section, re.fullmatch), ("number", m.number, re.fullmatch),
              ("place", m.place, re.fullmatch), ("token", m.token, re.search))
    for name, value, fn in checks:
        if name in rule and not fn(rule[name], value):
            return False
    if "before" in rule and not re.search(f"(?:{rule['before']})$", m.before):
        return False
    if "after" in rule and not re.match(rule["after"], m.after):
        return False
    return True


def _norm_place(token: str) -> str:
    token = token.strip()
    if re.fullmatch(r"[A-Z](?:\.\d+)+", token):
        return f"Appendix {token}"
    return re.sub(r"^(Fig\.?|Figs)\b", "Figure", token)


def claim_places(place: str) -> set[str]:
    """The sections, tables and figures a claim's ``place`` names."""
    out = set()
    for m in re.finditer(r"\b(Table|Figure|Section|Appendix)\s+([A-Z]?(?:\.?\d+)+|[A-Z])\b|\b([A-Z](?:\.\d+)+)\b"
                         r"|\b(Abstract)\b", place):
        if m.group(4):
            out.add("Abstract")
        elif m.group(3):
            out.add(f"Appendix {m.group(3)}")
        else:
            kind, num = m.group(1), m.group(2)
            if kind == "Section" and re.fullmatch(r"[A-Z](?:\.\d+)+", num):
                kind = "Appendix"
            out.add(f"{kind} {num}")
    return out


def mention_places(m: Mention) -> set[str]:
    out = set()
    sec = m.section
    if re.fullmatch(r"\d+(?:\.\d+)*", sec):
        parts = sec.split(".")
        out |= {"Section " + ".".join(parts[:i]) for i in range(1, len(parts) + 1)}
    elif re.fullmatch(r"[A-Z](?:\.\d+)+", sec):
        out |= {f"Appendix {sec}", f"Appendix {sec[0]}"}
    else:
        out.add(sec)
    if m.place:
        out.add(m.place)
    for r in PLACE_REF.finditer(m.context):
        out.add(f"{'Table' if r.group(1) == 'Table' else 'Figure'} {r.group(2)}")
    return out


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def distinctive(number: str) -> bool:
    """Three significant digits or more (2,633, 0.241; not 500, 3,000 or 0.5)."""
    digits = re.sub(r"\D", "", number).strip("0")
    return len(digits) >= 3


def classify(mentions: list[Mention], inventory: dict, claims: list[dict]) -> list[Mention]:
    """Fill ``claims`` / ``reason`` / ``rule`` of every mention (in place); returns them."""
    by_paper: dict[str, list[dict]] = {}
    for c in claims:
        if c.get("kind", "value") == "value" and isinstance(c.get("value"), (int, float)):
            by_paper.setdefault(c["paper"], []).append(c)
    refs: dict[str, list[str]] = {}
    literals: dict[str, list[tuple[float, dict]]] = {}
    for c in claims:
        if c.get("kind") == "consistency":
            for cid in re.findall(r"(?:paper|computed)\('([^']+)'\)", c["check"]):
                refs.setdefault(cid, []).append(c["id"])
            literals.setdefault(c["paper"], []).extend((v, c) for v in check_literals(c["check"]))
    hand = inventory["hand"]
    used: set[str] = set()
    for m in mentions:
        if m.key in hand:
            e = hand[m.key]
            m.claims = expand_claim_ids(e.get("claims") or [], [c["id"] for c in claims])
            m.reason = e.get("reason", "")
            m.rule = "hand"
            continue
        rule = next((r for r in inventory["structural"] if rule_matches(r, m)), None)
        if rule:
            m.reason, m.rule = rule["reason"], rule["name"]
            continue
        # equal up to the sign (the sign is checked by the derived rule "printed sign")
        same = [c for c in by_paper.get(m.paper, []) if abs(abs(float(c["value"])) - abs(m.value)) < 1e-9]
        here = [c for c in same if claim_places(str(c["place"])) & mention_places(m)]
        if here and m.row:
            # a table cell: equal cells pair with equal claims one to one, in order, those that
            # name the cell's row label first
            free = [c for c in here if c["id"] not in used]
            label = _norm(m.row)
            named = [c for c in free if label and label in _norm(c["id"] + " " + str(c.get("statement", "")))]
            here = (named or free)[:1] or here
            used.update(c["id"] for c in here)
        if here or (same and distinctive(m.number)):
            linked = here or same
            m.claims = sorted({c["id"] for c in linked} | {r for c in linked for r in refs.get(c["id"], [])})
            m.rule = "claim at its place" if here else "claim elsewhere"
            continue
        lit = [c for v, c in literals.get(m.paper, []) if abs(v - abs(m.value)) < 1e-9
               and claim_places(str(c["place"])) & mention_places(m)]
        if lit:
            m.claims = sorted({c["id"] for c in lit})
            m.rule = "number in a consistency check at its place"
            continue
        rule = next((r for r in inventory["wording"] if rule_matches(r, m)), None)
        if rule:
            m.reason, m.rule = rule["reason"], rule["name"]
    return mentions


def false_reasons(mentions: list[Mention], inventory: dict, claims: list[dict]) -> list[str]:
    """Reasons that contradict the claims: a number a hand entry or a wording rule says no claim
    checks (``not-checked-result``, ``not-in-real-inputs``, a design setting, ...) while a value claim
    of its paper states that number at its place (the claim checks it: the entry should name it)."""
    structural = {r["name"] for r in inventory["structural"]}
    out = []
    for m in mentions:
        if m.claims or not m.reason or m.rule in structural or math.isnan(m.value):
            continue
        here = [c["id"] for c in claims if c["paper"] == m.paper and c.get("kind", "value") == "value"
                and isinstance(c.get("value"), (int, float)) and abs(abs(float(c["value"])) - abs(m.value)) < 1e-9
                and claim_places(str(c["place"])) & mention_places(m)]
        if here:
            out.append(f"{m.key}: reason {m.reason} ({m.rule}), but {', '.join(sorted(here))} state(s) that number "
                       "at its place")
    return out


def expand_claim_ids(patterns: list[str], ids: list[str]) -> list[str]:
    """Claim ids and shell-style patterns (``personas.real.questions.*``) as the ids they match."""
    out = []
    for p in patterns:
        out += [i for i in ids if fnmatch.fnmatchcase(i, p)] if any(ch in p for ch in "*?[") else [p]
    return sorted(set(out))


def check_literals(check: str) -> list[float]:
    """The numeric constants a consistency check writes (``200 * 7 * 2 == ...``: 200, 7, 2)."""
    import ast

    out = []
    for node in ast.walk(ast.parse(check, mode="eval")):
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) \
                and not isinstance(node.value, bool):
            out.append(float(node.value))
    return out


def paper_texts(inventory: dict, folder: str | Path) -> dict[str, str]:
    """{paper: its text} of the papers the inventory names."""
    out = {}
    for paper, name in inventory["papers"].items():
        p = Path(folder) / name
        if not p.exists():
            raise InventoryError(f"paper text {p} ({paper}) does not exist")
        out[paper] = p.read_text(encoding="utf-8")
    return out


def read_papers(inventory: dict, folder: str | Path) -> list[Mention]:
    return [m for paper, text in paper_texts(inventory, folder).items() for m in extract(text, paper)]


def coverage_problems(mentions: list[Mention], inventory: dict, claims: list[dict]) -> list[str]:
    """Numbers no entry or rule covers, hand entries no number matches, claim ids that do not exist."""
    problems = [f"{m.key} (line {m.line}, column {m.column}): no claim and no reason: ...{m.context}..."
                for m in mentions if not m.claims and not m.reason]
    keys = {m.key for m in mentions}
    problems += [f"hand entry {k!r} matches no number of the papers" for k in inventory["hand"] if k not in keys]
    ids = {c["id"] for c in claims}
    for k, e in inventory["hand"].items():
        for p in e.get("claims") or []:
            if not expand_claim_ids([p], sorted(ids)) or not set(expand_claim_ids([p], sorted(ids))) <= ids:
                problems.append(f"hand entry {k!r}: no claim {p!r}")
    return problems


def table(mentions: list[Mention]):
    import pandas as pd

    return pd.DataFrame([{
        "paper": m.paper, "section": m.section, "place": m.place, "line": m.line, "column": m.column,
        "number": m.number, "value": m.value, "claims": ";".join(m.claims), "reason": m.reason,
        "rule": m.rule, "key": m.key, "context": m.context} for m in mentions])


def unprinted_claims(mentions: list[Mention], claims: list[dict]) -> list[dict]:
    """Value claims no number of the texts links to (values of figures the texts lost, ...)."""
    linked = {c for m in mentions for c in m.claims}
    return [c for c in claims if c.get("kind", "value") == "value" and c["id"] not in linked]


def summary(mentions: list[Mention], derived=None):
    """Counts per paper: numbers, numbers with a claim, per reason class, per rule, and the checks
    each derivation rule produced (``derived``: the table of ``derived_checks``), held or not."""
    import pandas as pd

    rows = []
    for paper in sorted({m.paper for m in mentions}) + ["all"]:
        ms = [m for m in mentions if paper in ("all", m.paper)]
        rows.append({"paper": paper, "group": "total", "name": "numbers", "count": len(ms)})
        rows.append({"paper": paper, "group": "total", "name": "checked by a claim",
                     "count": sum(bool(m.claims) for m in ms)})
        rows.append({"paper": paper, "group": "total", "name": "no claim (with a reason)",
                     "count": sum(bool(m.reason) and not m.claims for m in ms)})
        rows.append({"paper": paper, "group": "total", "name": "uncovered",
                     "count": sum(not m.reason and not m.claims for m in ms)})
        for name, n in sorted(Counter(m.reason for m in ms if m.reason and not m.claims).items()):
            rows.append({"paper": paper, "group": "reason", "name": name, "count": n})
        for name, n in sorted(Counter(m.rule for m in ms if m.rule).items()):
            rows.append({"paper": paper, "group": "rule", "name": name, "count": n})
        claims = {c for m in ms for c in m.claims}
        rows.append({"paper": paper, "group": "total", "name": "distinct claims linked", "count": len(claims)})
        if derived is not None:
            d = derived if paper == "all" else derived[derived["paper"] == paper]
            for (rule, status), n in d.groupby(["rule", "status"]).size().items():
                rows.append({"paper": paper, "group": "derived check", "name": f"{rule}: {status}",
                             "count": int(n)})
    return pd.DataFrame(rows)


# ---- consistency checks derived from the inventory, rule by rule ----

# the range a metric's definition allows, by claim unit
BOUNDS = {"percent": (0, 100), "percentage points": (-100, 100), "fraction": (0, 1), "fraction difference": (-1, 1),
          "correlation": (-1, 1), "agreement coefficient": (-1, 1), "cramers v": (0, 1), "p-value": (0, 1),
          "wasserstein distance": (0, math.inf), "count": (0, math.inf), "ratio": (0, math.inf)}
SHARE_UNITS = ("percent", "percentage points")


def printed_sign(m: Mention) -> int:
    """+1 / -1 when the number is printed with an explicit sign (+4.3, −0.8), else 0."""
    if m.number[:1] in MINUS:
        return -1
    return 1 if m.before.endswith("+") else 0


def derived_checks(mentions: list[Mention], claims: list[dict], texts: dict | None = None):
    """Checks derived from every printed number that a value claim checks, by rule:

    * ``metric bounds``: the printed value lies in the range its metric's definition allows (a
      percent in 0-100, a correlation in -1..1, a count a whole number >= 0, ...);
    * ``printed sign``: a number printed with a sign (+4.3, −0.8) has the sign of the claim's value;
    * ``printed unit``: a number printed with % is linked to a claim in percent or percentage points;
    * ``up to``: a number the text gives as "up to X" (or as a further number of that list: "up to
      X in A and Y in B") is no smaller than the numbers it ranges over: when it restates a table
      cell, over the cell's row and over its column (two readings, both shown: ``conditional`` when
      one holds), else over the numbers of the claims' ``place``;

    then the rules of ``cultalign.inventory_derived`` (same quantity, total and parts, design count,
    percent of counts, ranking in words), whose checks may also be ``conditional`` or ``undecided``.
    """
    import pandas as pd

    by_id = {c["id"]: c for c in claims}
    by_place: dict[tuple[str, str], list[float]] = {}
    for c in claims:
        if c.get("kind", "value") == "value" and isinstance(c.get("value"), (int, float)):
            by_place.setdefault((c["paper"], str(c["place"])), []).append(float(c["value"]))
    cell_of: dict[str, Mention] = {}
    for m in mentions:
        if m.row and m.cell > 0:
            for cid in m.claims:
                cell_of.setdefault(cid, m)
    rows = []
    for m in mentions:
        if UP_TO.search(m.before) and not m.row:
            # "up to X" in the text: no number it ranges over exceeds it
            values = [by_id[i] for i in m.claims if i in by_id and by_id[i].get("kind", "value") == "value"]
            cell = next((cell_of[c["id"]] for c in values if c["id"] in cell_of), None)
            if cell is not None:
                rows.append(_up_to_cell(m, cell, mentions, texts or {}))
                continue
            for c in values[:1]:
                cells = by_place.get((c["paper"], str(c["place"])), [])
                rows.append({"paper": m.paper, "key": m.key, "place": m.place or m.section, "claim": c["id"],
                             "rule": "up to", "holds": abs(m.value) >= max(cells),
                             "arithmetic": f"up to {m.number} vs the largest of the {len(cells)} numbers of "
                                           f"{c['place']}: {max(cells):g}"})
        for cid in m.claims:
            c = by_id.get(cid)
            if not c or c.get("kind", "value") != "value" or not isinstance(c.get("value"), (int, float)):
                continue
            sign = printed_sign(m)
            value = abs(m.value) * (sign or (1 if c["value"] >= 0 else -1))
            base = {"paper": m.paper, "key": m.key, "place": m.place or m.section, "claim": cid}
            lo, hi = BOUNDS.get(c.get("unit", ""), (-math.inf, math.inf))
            whole = c["unit"] != "count" or float(value).is_integer()
            rows.append({**base, "rule": "metric bounds", "holds": lo <= value <= hi and whole,
                         "arithmetic": f"{m.number} ({c['unit']}) in [{lo:g}, {hi:g}]"
                                       + ("" if c["unit"] != "count" else ", a whole number")})
            if sign and c["value"] != 0:
                rows.append({**base, "rule": "printed sign", "holds": (sign > 0) == (c["value"] > 0),
                             "arithmetic": f"printed {m.number} vs the claim's {c['value']:g}"})
            if m.number.endswith("%"):
                rows.append({**base, "rule": "printed unit", "holds": c["unit"] in SHARE_UNITS,
                             "arithmetic": f"printed {m.number} vs the claim's unit {c['unit']}"})
    for r in rows:
        r.setdefault("status", "holds" if r["holds"] else "does not hold")
        r["coverage"] = COVERAGE.get(r["rule"], "")
    rows += derived_rows(mentions, claims, texts)
    cols = ["rule", "paper", "key", "place", "claim", "status", "holds", "coverage", "arithmetic"]
    return pd.DataFrame(rows, columns=cols).fillna({"coverage": ""})


UP_TO = re.compile(r"\bup to\s*\+?$|\bup to\s*\+?\d[\d.,]*%?(?:[^.;]|(?<=vs)\.|\.(?! [A-Z])){0,60}\band\s*\+?$")
# checks that cannot fail, by rule (the reason): they count as coverage, apart from the checks that could fail
COVERAGE = {
    "metric bounds": "the printed number against the range of its own claim's unit, a claim typed from that number",
    "printed unit": "the printed % against the unit of its own claim, a claim typed from that number",
}


def _up_to_cell(m: Mention, cell: Mention, mentions: list[Mention], texts: dict) -> dict:
    """"up to X" where X restates a table cell: the largest number of the cell's row and of its column
    (the text may mean either: "up to +25.9% in South Africa (vs. BFI)"); both readings shown."""
    from .inventory_derived import column_label, is_quantity

    peers = [c for c in mentions if c.paper == cell.paper and c.place == cell.place and c.section == cell.section
             and c.row and c.cell > 0 and is_quantity(c)]
    row = [c for c in peers if c.line == cell.line]
    col = [c for c in peers if c.cell == cell.cell]
    label = column_label(texts.get(cell.paper, ""), cell) or f"column {cell.cell}"
    readings = []
    for name, group in ((f"its row ({cell.row})", row), (f"its column ({label})", col)):
        top = max(group, key=lambda c: c.value)
        readings.append((name, abs(m.value) >= top.value,
                         f"{name}: the largest of its {len(group)} numbers is {top.number} ({top.row}, "
                         f"{column_label(texts.get(cell.paper, ''), top) or f'column {top.cell}'})"))
    held = [n for n, ok, _ in readings if ok]
    shown = "; ".join(t for _, _, t in readings)
    status = "holds" if len(held) == 2 else "conditional" if held else "does not hold"
    if status == "conditional":
        failed = [n for n, ok, _ in readings if not ok]
        shown += f"; holds if 'up to' ranges over {held[0]}, not over {failed[0]}"
    return {"paper": m.paper, "key": m.key, "place": m.place or m.section, "claim": ";".join(cell.claims),
            "rule": "up to", "holds": status == "holds", "status": status,
            "arithmetic": f"up to {m.number} = {cell.place} {cell.row} {label}; {shown}"}
