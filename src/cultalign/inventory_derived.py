"""Consistency checks derived mechanically from the inventory of printed numbers (the
``Mention`` list of ``cultalign.inventory``), one function per rule; ``inventory.derived_checks``
runs them after the per-number rules (metric bounds, printed sign, printed unit, "up to").

Every check is a row with ``status`` ``holds``, ``does not hold``, ``conditional`` (holds under one
reading of the printed number, e.g. truncation, not under the other) or ``undecided`` (the rule
found a candidate but cannot decide; the arithmetic says why).  A rule fails a check only where
the numbers it compares are tied by the inventory (linked to one claim or fact, cells of one
table) or written as a ratio (``a/b``, ``a of b``); a pattern found by proximity alone that does
not add up is ``undecided``, so a false failure stays rare.

* ``same quantity``: mentions linked to one value claim, or to claims of one fact (section
  ``facts`` of ``config/claims.yaml``), agree within the rounding each is printed to (a table cell
  restated in the abstract, text or a caption is linked to the cell's claim);
* ``total and parts``: a table row labelled total/all/sum against the sum of the rows above it
  (column by column); a number the text calls a total ("in total", "the total number of ... was")
  against the counts printed in the sentences before it (a sum of two to four of them, or a
  product of two: a design's count times a per-unit count);
* ``design count``: a per-unit count ("100 per trait", "for each country") times the number of
  units printed near it ("five traits", "6 countries") against a count printed near both;
* ``percent of counts``: a percentage printed near two counts whose ratio is within one printed
  unit of it: rounding and truncation of the ratio, both shown;
* ``ranking in words``: a number the text calls "the highest", "the lowest", "best", "top", ...
  against the column and the row of the table cell that states it.
"""

from __future__ import annotations

import itertools
import math
import re
from decimal import ROUND_DOWN, ROUND_HALF_UP, Decimal

# reasons of numbers that state nothing (never the parts of a total or a ratio)
NOT_QUANTITIES = {"reference-list", "link", "label-number", "citation-year", "front-matter", "grant-number",
                  "footnote-marker", "name-part", "formula", "enumeration", "layout"}
WINDOW = 300          # characters of one paragraph around a number that count as "near"
NUMBER_WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve".split())}
TOTAL_BEFORE = re.compile(r"(?i)\b(?:in total|totall?ing|a total of"
                          r"|total(?:s)?(?: number of \w+)?(?: \w+)? (?:was|is|of)"
                          r"|overall|altogether|sums? to|adds? up to)\W{0,3}(?:\w+\W+){0,2}$")
TOTAL_AFTER = re.compile(r"(?i)^\s*(?:\w+\s+){0,2}(?:in total|total|altogether|overall)\b")
TOTAL_ROW = re.compile(r"(?i)^(?:total|sum|all)$")
PER_UNIT = re.compile(r"(?i)^\s*(?:[a-z-]+\s+){0,3}?(?:per|for each|for every|in each|each)\s+([a-z]+)")
RANK_WORDS = {"highest": "max", "largest": "max", "most": "max", "maximum": "max", "greatest": "max",
              "strongest": "max", "top": "max", "peak": "max", "lowest": "min", "smallest": "min", "least": "min",
              "minimum": "min", "weakest": "min", "best": "extreme", "worst": "extreme", "outperforms": "extreme",
              "outperformed": "extreme", "outperforming": "extreme"}
RANK_BEFORE = re.compile(r"(?i)\b(" + "|".join(RANK_WORDS) + r")\b[^.;]{0,55}$")
RANK_AFTER = re.compile(r"(?i)^[^.;]{0,15}\b(" + "|".join(RANK_WORDS) + r")\b")


def decimals(number: str) -> int:
    t = number.replace(",", "").rstrip("%")
    return len(t.split(".")[1]) if "." in t else 0


def half_unit(number: str) -> float:
    """Half a unit of the last digit printed (19.1 -> 0.05; 2,633 -> 0.5)."""
    return 0.5 * 10 ** -decimals(number)


def is_quantity(m) -> bool:
    """A number that states something: not a label, link, year or name part; a finite value."""
    return not (m.reason in NOT_QUANTITIES and not m.claims) and not math.isnan(m.value)


def is_count(m) -> bool:
    return is_quantity(m) and not m.number.endswith("%") and float(m.value).is_integer() and m.value > 0


def near(a, b, window: int = WINDOW) -> bool:
    return a.paper == b.paper and a.line == b.line and abs(a.column - b.column) <= window and a is not b


def _row(rule, m, status, arithmetic, claim="", coverage=""):
    return {"paper": m.paper, "key": m.key, "place": m.place or m.section, "claim": claim, "rule": rule,
            "holds": status == "holds", "status": status, "coverage": coverage, "arithmetic": arithmetic}


# rules of the inventory that link a number to a claim because the number equals the claim's value
VALUE_LINKS = ("claim at its place", "claim elsewhere")
DATA_CELL = re.compile(r"^\s*[-+\u2212]?(?:\d[\d,]*(?:\.\d+)?|\.\d+)%?\s*[\u2217*]*\s*$")


def column_label(text: str, cell) -> str:
    """The header of a table cell's column ("MCS BFI"): the header lines above its row (lines of
    the table block whose cells are not numbers), each giving the label at the cell's position or,
    for a label that spans columns (followed by empty cells), the nearest one to its left."""
    if not text or cell.cell < 1:
        return ""
    lines = text.split("\n")
    i, headers = cell.line - 2, []
    while i >= 0 and "\t" in lines[i]:
        cells = lines[i].split("\t")
        if all(DATA_CELL.match(c) or not c.strip() for c in cells[1:]):
            if headers:
                break
        else:
            headers.append(cells)
        i -= 1
    parts = []
    for cells in reversed(headers):
        j = min(cell.cell, len(cells) - 1)
        while j > 0 and not cells[j].strip():
            j -= 1
        if j > 0 and cells[j].strip():
            parts.append(cells[j].strip())
    return " ".join(parts)


def _quant(value: float, digits: int, mode) -> float:
    return float(Decimal(repr(value)).quantize(Decimal(1).scaleb(-digits), rounding=mode))


# ---- same quantity ----

def same_quantity(mentions, claims) -> list[dict]:
    """Mentions linked to one value claim, or to the claims of one fact, agree to their rounding."""
    by_id = {c["id"]: c for c in claims}
    groups: dict[str, list] = {}
    for m in mentions:
        keys = set()
        for cid in m.claims:
            c = by_id.get(cid)
            if c and c.get("kind", "value") == "value" and isinstance(c.get("value"), (int, float)) \
                    and c.get("basis") != "range":        # a stated range's ends are not its value
                keys.add(("fact", c["fact"]) if c.get("fact", cid) != cid else ("claim", cid))
        for k in keys:
            groups.setdefault(k, []).append(m)
    rows = []
    for (kind, gid), ms in sorted(groups.items()):
        ms = list({m.key: m for m in ms}.values())
        if len(ms) < 2:
            continue
        units = {by_id[i].get("unit") for m in ms for i in m.claims if i in by_id
                 and by_id[i].get("kind", "value") == "value" and (by_id[i].get("fact") == gid or i == gid)}
        anchor = next((m for m in ms if m.row), ms[0])
        for m in ms:
            if m is anchor:
                continue
            what = (f"{kind} {gid}: {m.number} ({m.place or m.section}) vs {anchor.number} "
                    f"({anchor.place or anchor.section})")
            if len(units) > 1:
                rows.append(_row("same quantity", m, "undecided", f"{what}: its claims differ in unit "
                                 f"({', '.join(sorted(map(str, units)))})", gid))
                continue
            a, b = m.value, anchor.value
            values = {abs(float(by_id[i]["value"])) for x in (m, anchor) for i in x.claims if i in by_id
                      and by_id[i].get("kind", "value") == "value" and (by_id[i].get("fact") == gid or i == gid)}
            if m.rule in VALUE_LINKS and anchor.rule in VALUE_LINKS and len(values) == 1:
                # both linked to the group because each equals its one value: cannot differ (in magnitude;
                # a sign printed against the claim's is the rule printed sign's)
                rows.append(_row("same quantity", m, "holds", f"{what}: both equal {values.pop():g}", gid,
                                 coverage="both numbers are linked to one claim (or fact) because each equals "
                                          "its value"))
                continue
            if m.number.endswith("%") != anchor.number.endswith("%") and max(abs(a), abs(b)) > 0 \
                    and abs(abs(a * 100) - abs(b)) < abs(abs(a) - abs(b)):
                a = a * 100                              # 0.395 and 39.5% state one share
            elif m.number.endswith("%") != anchor.number.endswith("%") and abs(abs(b * 100) - abs(a)) < abs(a - b):
                b = b * 100
            band = half_unit(m.number) + half_unit(anchor.number)
            ok = abs(a - b) <= band + 1e-12 * max(1, abs(a))   # binary noise of the printed decimals only
            rows.append(_row("same quantity", m, "holds" if ok else "does not hold",
                             f"{what}: |{a:g} - {b:g}| = {abs(a - b):.6g} vs the rounding {band:g}", gid))
    return rows


# ---- totals and parts, designs and their counts ----

def _sums(parts, target, sizes=(2, 3, 4)):
    """(the parts, their sum) of the nearest subsets (2-4 parts) adding up to ``target``; else the closest."""
    best = None
    for k in sizes:
        for combo in itertools.combinations(parts, k):
            s = sum(p.value for p in combo)
            if best is None or abs(s - target) < abs(best[1] - target):
                best = (combo, s)
            if s == target:
                return combo, s
    return best


def totals(mentions) -> list[dict]:
    rows = []
    # a table's total row against the rows above it, column by column
    tables: dict[tuple, list] = {}
    for m in mentions:
        if m.row and m.cell > 0 and is_quantity(m):
            tables.setdefault((m.paper, m.place, m.section), []).append(m)
    for cells in tables.values():
        for t in (c for c in cells if TOTAL_ROW.match(c.row)):
            parts = [c for c in cells if c.cell == t.cell and c.line < t.line and not TOTAL_ROW.match(c.row)]
            if len(parts) < 2:
                continue
            s = sum(p.value for p in parts)
            exact = all(decimals(p.number) == 0 and not p.number.endswith("%") for p in parts + [t])
            band = 0 if exact else sum(half_unit(p.number) for p in parts) + half_unit(t.number)
            rows.append(_row("total and parts", t, "holds" if abs(s - t.value) <= band else "does not hold",
                             f"{t.place} row {t.row} column {t.cell}: {t.number} vs the sum of the "
                             f"{len(parts)} rows above it {s:g} (rounding {band:g})"))
    # a number the text calls a total against the counts printed near it
    for t in mentions:
        if t.row or not is_count(t) or not (TOTAL_BEFORE.search(t.before[-60:]) or TOTAL_AFTER.match(t.after)):
            continue
        near_ms = [p for p in mentions if near(p, t) and is_quantity(p) and not p.row and not p.number.endswith("%")]
        parts = sorted((p for p in near_ms if is_count(p) and p.value < t.value),
                       key=lambda p: abs(p.column - t.column))[:8]
        best = _sums(parts, t.value) if len(parts) >= 2 else None
        words = [(n, w) for w, n in NUMBER_WORDS.items() if n > 1
                 and re.search(rf"(?i)\b{w}\b", " ".join(p.context for p in parts + [t]))]
        prods = [f"{a.number} x {b.number}" for a, b in itertools.combinations(parts, 2)
                 if a.value * b.value == t.value]
        prods += [f"{a.number} x {w}" for a in parts for n, w in words if a.value * n == t.value]
        means = [x for x in near_ms if not float(x.value).is_integer() and re.search(
            r"(?i)\b(?:average|mean|per)\b", x.before[-30:] + x.after[:30])]
        if best and best[1] == t.value:
            rows.append(_row("total and parts", t, "holds", f"total {t.number} = "
                             + " + ".join(p.number for p in best[0])))
        elif prods:
            rows.append(_row("total and parts", t, "holds", f"total {t.number} = {prods[0]}"))
        elif means and parts:
            # a count times a printed average: the average is the total over the count, rounded or truncated
            x = means[0]
            n = min(parts, key=lambda p: abs(p.value * x.value - t.value))
            r = t.value / n.value
            d = decimals(x.number)
            rnd, trunc = _quant(r, d, ROUND_HALF_UP), _quant(r, d, ROUND_DOWN)
            arith = (f"total {t.number} / {n.number} = {r:.6g} vs the printed average {x.number}: "
                     f"rounded {rnd:g}, truncated {trunc:g}")
            if rnd == abs(x.value) and trunc == abs(x.value):
                rows.append(_row("total and parts", t, "holds", arith))
            elif rnd == abs(x.value) or trunc == abs(x.value):
                rows.append(_row("total and parts", t, "conditional",
                                 arith + f"; holds only {'rounded' if rnd == abs(x.value) else 'truncated'}"))
            else:
                rows.append(_row("total and parts", t, "undecided", arith + " (the count may not be its denominator)"))
        else:
            near_miss = f"; the closest sum {' + '.join(p.number for p in best[0])} = {best[1]:g}" if best else ""
            rows.append(_row("total and parts", t, "undecided",
                             f"total {t.number}: no sum of two to four of the {len(parts)} counts printed near it "
                             f"and no product of two equals it{near_miss} (its parts may not be printed)"))
    return rows


def _unit_counts(text: str, noun: str) -> set[tuple[int, str]]:
    """The numbers of ``noun``s ``text`` states ("five Big Five traits", "6 countries")."""
    stem = noun[:-1] if noun.endswith("y") else noun
    out = set()
    for hit in re.finditer(r"(?i)\b(\d+|" + "|".join(NUMBER_WORDS) + r")\s+(?:[A-Za-z-]+\s+){0,3}?"
                           + re.escape(stem) + r"(?:s|es|ies)\b", text):
        word = hit.group(1).lower()
        n = int(word) if word.isdigit() else NUMBER_WORDS[word]
        if n > 1:
            out.add((n, hit.group(0)))
    return out


def _unit_count(u, noun: str, texts: dict) -> tuple[int, str] | None:
    """The number of ``noun``s printed near ``u``; else the one number of them its paper states."""
    found = _unit_counts(u.context, noun)
    if not found and u.paper in texts:
        found = _unit_counts(texts[u.paper], noun)
    return next(iter(found)) if len({n for n, _ in found}) == 1 else None


def design_counts(mentions, texts: dict | None = None) -> list[dict]:
    rows = []
    for u in mentions:
        if u.row or not is_count(u):
            continue
        hit = PER_UNIT.match(u.after)
        if not hit:
            continue
        noun = hit.group(1).lower()
        if noun in ("the", "a", "an", "of"):   # "each of the ...", no unit noun to count
            continue
        found = _unit_count(u, noun, texts or {})
        if not found:
            rows.append(_row("design count", u, "undecided",
                             f"{u.number} per {noun}: the paper states no single number of {noun}s"))
            continue
        n, words = found
        product = u.value * n
        same = [t for t in mentions if t.paper == u.paper and is_count(t) and t.value == product]
        hits = [t for t in same if t.line == u.line and abs(t.column - u.column) <= WINDOW] or same
        if hits:
            rows.append(_row("design count", u, "holds",
                             f"{u.number} per {noun} x {n} ('{words}') = {hits[0].number} "
                             f"(§{hits[0].section}{', near it' if near(hits[0], u) else ''})"))
        else:
            rows.append(_row("design count", u, "undecided",
                             f"{u.number} per {noun} x {n} ('{words}') = {product:g}: no count of the paper "
                             f"states it"))
    return rows


# ---- percentages against their numerator and denominator ----

def percents(mentions) -> list[dict]:
    rows = []
    for m in mentions:
        if m.row or not m.number.endswith("%") or not is_quantity(m):
            continue
        d = decimals(m.number)
        unit = 10 ** -d
        counts = [c for c in mentions if near(c, m, 200) and is_count(c) and not c.row]
        line = m.before.split("\n")[-1] + m.number + m.after.split("\n")[0]   # its own paragraph
        cands = []
        for a, b in itertools.permutations(counts, 2):
            if a.value <= b.value and b.value >= 2:
                r = 100 * a.value / b.value
                explicit = bool(re.search(rf"(?<![\d.,]){re.escape(a.number)}\s*(?:/|of|out of)\s*"
                                          rf"{re.escape(b.number)}(?![\d.,]\d)", line))
                if explicit or abs(r - abs(m.value)) < unit:
                    cands.append((explicit, a, b, r))
        if not cands:
            continue
        p = abs(m.value)
        readings = []
        for explicit, a, b, r in sorted(cands, key=lambda x: -x[0]):
            rnd, trunc = _quant(r, d, ROUND_HALF_UP), _quant(r, d, ROUND_DOWN)
            readings.append((explicit, a, b, r, rnd == p, trunc == p, rnd, trunc))
        ok = [x for x in readings if x[4] or x[5]]
        explicit, a, b, r, by_round, by_trunc, rnd, trunc = (ok or readings)[0]
        arith = (f"{m.number} vs {a.number}/{b.number} = {r:.6g}%: rounded {rnd:g}, truncated {trunc:g} "
                 f"({'written as the ratio' if explicit else 'counts printed near it'})")
        if by_round and by_trunc:
            status = "holds"
        elif by_round or by_trunc:
            status = "conditional"
            arith += f"; holds only {'rounded' if by_round else 'truncated'}"
        else:
            status = "does not hold" if explicit else "undecided"
        rows.append(_row("percent of counts", m, status, arith))
    return rows


# ---- rankings and tiers named in words ----

def rankings(mentions, claims) -> list[dict]:
    by_id = {c["id"]: c for c in claims}
    cells_of: dict[str, list] = {}
    for m in mentions:
        if m.row and m.cell > 0:
            for cid in m.claims:
                cells_of.setdefault(cid, []).append(m)
    rows = []
    for m in mentions:
        if m.row or not m.claims:
            continue
        hit = RANK_BEFORE.search(m.before) or RANK_AFTER.match(m.after)
        if not hit:
            continue
        word = hit.group(1).lower()
        way = RANK_WORDS[word]
        values = [i for i in m.claims if by_id.get(i, {}).get("kind", "value") == "value"]
        cells = [c for i in values for c in cells_of.get(i, [])]
        if not cells:
            rows.append(_row("ranking in words", m, "undecided",
                             f"'{word}' {m.number}: no table cell of the texts states it (a figure's value, or "
                             f"its table is not in the text)", ";".join(values)))
            continue
        cell = cells[0]
        peers = [c for c in mentions if c.paper == cell.paper and c.place == cell.place and c.row and c.cell > 0
                 and c.section == cell.section and is_quantity(c)
                 and c.number.endswith("%") == cell.number.endswith("%")]
        column = [c.value for c in peers if c.cell == cell.cell]
        row = [c.value for c in peers if c.line == cell.line]
        ext = {"max": [max], "min": [min], "extreme": [max, min]}[way]
        hits = [(name, fn.__name__) for name, vals in (("column", column), ("row", row)) if len(vals) > 1
                for fn in ext if cell.value == fn(vals)]
        where = (f"'{word}' {m.number} = {cell.place} row {cell.row} column {cell.cell}; column "
                 f"{min(column):g}..{max(column):g}, row {min(row):g}..{max(row):g}")
        if hits:
            rows.append(_row("ranking in words", m, "holds", f"{where}: the {hits[0][1]} of its {hits[0][0]}",
                             ";".join(values)))
        else:
            rows.append(_row("ranking in words", m, "does not hold",
                             f"{where}: not the {' or '.join(f.__name__ for f in ext)} of its column or row",
                             ";".join(values)))
    return rows


def derived_rows(mentions, claims, texts: dict | None = None) -> list[dict]:
    """The checks of every rule of this module; ``texts`` ({paper: text}) lets the design-count rule
    find a unit's number anywhere in its paper."""
    return same_quantity(mentions, claims) + totals(mentions) + design_counts(mentions, texts) + percents(mentions) \
        + rankings(mentions, claims)
