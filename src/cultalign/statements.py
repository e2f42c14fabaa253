"""Statements in words: what the papers say about their numbers without printing them (orderings,
extremes, labels that sort models or countries into groups, which traits or countries stand out,
counts written in words or implied by a list, a caption's and the text's descriptions of one table,
facts stated about external datasets), each checked against the table, figure data, release or
data file it refers to.

The papers' sentences are read from their texts (the inventory's sections and table/figure places,
``cultalign.inventory``); ``config/claims-statements.yaml`` (config key ``claims_statements``) names,
per paper, the *entities* a sentence can name (models, countries, traits, relations: canonical
name -> regex), the *measures* a statement can be about (the words that name one, the tables or
figures it belongs to, where its values are: a table of the text, or a result table of the
workflow such as the PACT authors' figure data) and the external *datasets* and *region* facts
the papers state things about.  Seven rules, each a function over the sentences:

* ``extreme``: "X shows the highest / lowest / largest / best ... <measure>": the entities named
  are the top (or bottom) k of the measure's values (ties count as either);
* ``ordering``: "X ..., followed by Y", "X exceeds Y", "X is higher than Y": the order holds;
* ``group labels``: labels that sort the named entities into groups ("norm-dominant (Mistral,
  DeepSeek, Qwen) ... preference-permissive (Llama, GPT)"; "negative gaps"; "East Asian countries
  i.e. Japan, India"): every entity of a higher group above every one of a lower group, a sign
  label by its sign, a region label by the region table;
* ``stand out``: "especially / particularly / e.g. / such as X": the entities named are the top k;
* ``count in words``: "three categories: (1) ..., (2) ...", "six countries (USA, Brazil, ...)",
  "five continents: <countries>": the number in words against the list (or enumeration) that
  follows, items mapped through the region table where the noun is a region;
* ``caption vs text``: a caption's and the text's statements of one kind about the same table or
  figure name the same entities;
* ``external dataset``: a dataset the lexicon names, with a count in words or a list of entities
  of a kind its data hold (the CulturalPersonas release's countries): the data's set.

Each candidate sentence gives one row per rule with status ``holds``, ``does not hold``,
``conditional`` (holds under one reading the text allows, not another: both shown) or
``undecided`` with the reason (no measure named, no data for it, an entity the data lack, ...):
a statement no rule can resolve is never dropped.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from statistics import mean

import pandas as pd

from .core.yamlload import safe_load

COLUMNS = ["rule", "paper", "key", "section", "place", "line", "column", "sentence", "entities", "measure", "status",
           "evidence", "resolution"]
STATUSES = ("holds", "does not hold", "conditional", "undecided")
RULES = ("extreme", "ordering", "group labels", "stand out", "count in words", "caption vs text", "external dataset")
NUMBER_WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve".split()) if i > 1}
MAX_WORDS = r"highest|largest|greatest|most|maximum|biggest"
MIN_WORDS = r"lowest|smallest|least|minimum|fewest"
BEST_WORDS = r"best|strongest"
WORST_WORDS = r"worst|weakest"
EXTREME = re.compile(rf"(?i)\b(?:the\s+)?({MAX_WORDS}|{MIN_WORDS}|{BEST_WORDS}|{WORST_WORDS})\b"
                     r"(?!\s+(?:of|models?|countries|settings|cases|people|participants|categories|common(?:ly)?|"
                     r"likely|recent|widely|often|similar|internally|culturally)\b)")
STAND_OUT = re.compile(r"(?i)(?<!\w)(especially|particularly|notably|in particular|e\.g\.|such as|stand(?:s)? out|"
                       r"driven most strongly by)(?!\w)")
ORDER = re.compile(r"(?i)\b(followed by|exceeds?|outperform(?:s|ed|ing)?|(?:higher|lower|larger|smaller|stronger|"
                   r"weaker|more|less|better|worse)\b[^.;]{0,40}?\bthan)\b")
CLAUSE_SPLIT = re.compile(r"(?i);|,?\s+(?:while|whereas|but|despite|although)\s+|,\s+and\s+(?=(?:the\s+)?(?:"
                          + MIN_WORDS + "|" + MAX_WORDS + "|" + BEST_WORDS + "|" + WORST_WORDS + r")\b)")
SENTENCE_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\[])|\s+(?=\(\d+\)\s+[A-Z])")
CAPTION_START = re.compile(r"\s*(?:Table|Figure) \d+: ")


class StatementsError(ValueError):
    pass


@dataclass
class Sentence:
    paper: str
    section: str
    place: str            # the table / figure whose caption the sentence is in ("" outside captions)
    refs: list[str]       # the tables / figures it refers to (its own, else the paragraph's last)
    line: int
    column: int
    key: str
    text: str             # cleaned: links, images and markup removed
    paragraph: int
    measure_hint: str = ""   # the last measure the paragraph named before this sentence
    rest: str = ""           # the paragraph from this sentence on (an enumeration may run past it)


@dataclass
class Table:
    """A table of a paper's text: row labels, column labels (header levels joined), cell values."""
    name: str
    rows: list[str]
    columns: list[str]
    last: list[str]            # the last header level of each column ("O", "BFI")
    cells: dict[tuple[int, int], float] = field(default_factory=dict)


# ---- reading the texts ----

def clean(text: str) -> str:
    text = re.sub(r"!\[[^\]]*\]\([^)]*\)", " ", text)                       # images
    text = re.sub(r"\[([^\]]*)\]\((?:https?://|#)[^)\s]*(?:\s+\"[^\"]*\")?\)", r"\1", text)   # links -> text
    text = re.sub(r"\((?:https?://)[^)]*\)", " ", text)
    text = re.sub(r"\$([^$]{0,40})\$", r"\1", text)                          # inline math markers
    text = re.sub(r"\\(?:uparrow|rightarrow)", "", text)
    return " ".join(text.split())


def sentences(text: str, paper: str, skip_sections: str = "") -> list[Sentence]:
    """The sentences of a paper's text outside tables, with their section, caption place, the
    tables/figures they refer to and a key ``<paper> §<section> '<its first five words>'``."""
    from .inventory import _sections, _table_places

    secs = _sections(text)
    table_blocks = [(s, e) for s, e, p in _table_places(text) if p != "" and "\t" in text[s:e]]
    line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
    # paragraphs: lines, and in a one-line text the stretches between markdown headings
    bounds = sorted({0, len(text), *[m.start() for m in re.finditer(r"\n|(?<=\s)#{1,6} ", text)]})
    out: list[Sentence] = []
    count: dict[str, int] = {}
    for pi, (a, b) in enumerate(zip(bounds, bounds[1:])):
        para = text[a:b]
        if "\t" in para or not para.strip():
            continue
        if any(s <= a < e for s, e in table_blocks):
            continue
        refs_before: list[str] = []
        # a caption: a paragraph (line) that starts with "Table N:" / "Figure N:"; in a text without line
        # breaks (a caption runs into the body) only its first sentence
        cap = CAPTION_START.match(para)
        caption = re.match(r"\s*((?:Table|Figure) \d+)", para).group(1) if cap else ""
        caption_whole = bool(cap) and len(para) < 1500
        # split where a sentence ends, never inside a link (its title has its own punctuation)
        masked = re.sub(r"\[[^\]]*\]\([^)]*\)|\b(?:e\.g|i\.e|vs|et al|Fig|cf|approx)\.",
                        lambda x: "x" * len(x.group(0)), para)
        cuts = [0] + [m.end() for m in SENTENCE_SPLIT.finditer(masked)] + [len(para)]
        for n, (x, y) in enumerate(zip(cuts, cuts[1:])):
            raw = para[x:y]
            start = a + x + len(raw) - len(raw.lstrip())
            sentence = clean(raw)
            if len(sentence) < 12 or (sentence.startswith("#") and not re.search(r"[.!?:]$", sentence)):
                continue   # a heading on its own line
            section = next(s for o, s in reversed(secs) if o <= start)
            if skip_sections and re.fullmatch(skip_sections, section):
                continue
            place = caption if caption and (caption_whole or n == 0) else ""
            own = refs_of(sentence)
            refs = ([place] if place else []) + [r for r in own if r != place] or refs_before
            refs_before = own   # a sentence without a reference takes the one right before it, no further
            li = max(i for i, ls in enumerate(line_starts) if ls <= start)
            # the key: its section and its first words (stable when sentences elsewhere change), #k if repeated
            words = " ".join(re.findall(r"[A-Za-z0-9][\w'-]*", re.sub(r"^#+\s*\S+\s*", "", sentence))[:5])
            base = f"{paper} §{section} '{words}'"
            count[base] = count.get(base, 0) + 1
            key = base if count[base] == 1 else f"{base} ({count[base]})"
            out.append(Sentence(paper, section, place, refs, li + 1, start - line_starts[li] + 1,
                                key, sentence, pi, rest=clean(para[x:])))
    return out


def refs_of(sentence: str) -> list[str]:
    out = []
    for m in re.finditer(r"\b(Tables?|Figures?|Figs?\.?)\s*\[?(\d+)\]?(?:[A-D])?((?:\s*(?:,|and|&)\s*\[?\d+\]?)*)",
                         sentence):
        kind = "Table" if m.group(1).startswith("Table") else "Figure"
        for n in [m.group(2), *re.findall(r"\d+", m.group(3) or "")]:
            out.append(f"{kind} {n}")
    return list(dict.fromkeys(out))


def text_tables(text: str) -> dict[str, Table]:
    """The tab-separated tables of a text, by their caption's name: header lines (cells that are not
    numbers) give each column's label, a label followed by empty cells spanning them."""
    from .inventory import _table_places
    from .inventory_derived import DATA_CELL

    out = {}
    for s, e, name in _table_places(text):
        block = text[s:e]
        if "\t" not in block or not name.startswith("Table"):
            continue
        lines = [ln for ln in block.split("\n") if "\t" in ln]
        headers, data = [], []
        for ln in lines:
            cells = ln.split("\t")
            numeric = [c for c in cells[1:] if c.strip()]
            if numeric and all(DATA_CELL.match(c) for c in numeric):
                data.append(cells)
            elif not data:
                headers.append(cells)
        if not data:
            continue
        width = max(len(c) for c in data)
        labels: list[list[str]] = []
        for h in headers:
            level, cur = [], ""
            for j in range(width):
                v = h[j].strip() if j < len(h) else ""
                cur = v or (cur if j > 0 else "")
                level.append(cur if j > 0 else "")
            labels.append(level)
        columns = [" ".join(lv[j] for lv in labels if lv[j]) for j in range(width)]
        last = [next((lv[j] for lv in reversed(labels) if lv[j]), "") for j in range(width)]
        t = Table(name, [c[0].strip() for c in data], columns, last)
        for i, cells in enumerate(data):
            for j, c in enumerate(cells[1:], start=1):
                v = re.sub(r"[\u2217*%\s]", "", c).replace("\u2212", "-")
                if v:
                    t.cells[(i, j)] = float("0" + v if v.startswith(".") else v)
        out[name] = t
    return out


# ---- the lexicon ----

def load_lexicon(path: str | Path) -> dict:
    data = safe_load(Path(path).read_text()) or {}
    for key in ("papers", "entities", "measures"):
        if key not in data:
            raise StatementsError(f"{path}: missing section {key!r}")
    for paper, measures in data["measures"].items():
        kinds = set((data["entities"].get(paper) or {}))
        for i, m in enumerate(measures):
            where = f"{path}: measures.{paper}[{i}] ({m.get('name', '?')})"
            for k in ("name", "entity", "source"):
                if k not in m:
                    raise StatementsError(f"{where}: needs {k}")
            if m["entity"] not in kinds:
                raise StatementsError(f"{where}: entity kind {m['entity']!r} is not in entities.{paper}")
            if m.get("better") not in (None, "higher", "lower"):
                raise StatementsError(f"{where}: better is higher or lower")
            for k in ("words", "high", "low", "middle"):
                for rx in ([m[k]] if isinstance(m.get(k), str) else m.get(k) or []):
                    try:
                        re.compile(rx)
                    except re.error as e:
                        raise StatementsError(f"{where}: bad regex {k}: {e}") from e
    return data


@dataclass
class Entity:
    kind: str
    name: str
    start: int
    end: int


def find_entities(sentence: str, kinds: dict) -> list[Entity]:
    """The entities a sentence names, in order; a longer match wins over one inside it."""
    hits = []
    for kind, names in kinds.items():
        for name, rx in names.items():
            for m in re.finditer(rf"(?<![\w-])(?:{rx})(?![\w-])", sentence):
                hits.append(Entity(kind, name, m.start(), m.end()))
    hits.sort(key=lambda e: (e.start, -(e.end - e.start)))
    out: list[Entity] = []
    for e in hits:
        if out and e.start < out[-1].end:
            continue
        out.append(e)
    return out


def resolve_measure(measure: dict, tables: dict[str, Table], results: dict[str, pd.DataFrame]) \
        -> tuple[dict[str, dict[str, float]] | None, str]:
    """{variant: {entity: value}} of a measure (one variant, ``all``, unless it has ``each``), or
    (None, why not)."""
    src = measure["source"]
    labels = measure.get("labels") or {}
    variants = measure.get("each") or {"all": {}}
    if measure.get("readings"):   # two quantities the text may mean: each checked, conditional when they disagree
        out = {}
        for rname, over in measure["readings"].items():
            sub = {k: v for k, v in measure.items() if k != "readings"}
            sub["source"] = {**src, **(over.get("source") or {})}
            sub.update({k: v for k, v in over.items() if k != "source"})
            vals, why = resolve_measure(sub, tables, results)
            if vals is None:
                return None, why
            out.update({f"reading: {rname}" + ("" if k == "all" else f", {k}"): v for k, v in vals.items()})
        return out, ""
    out = {}
    for vname, extra in variants.items():
        vals: dict[str, float] = {}
        if "tables" in src:
            missing = [t for t in src["tables"] if t not in tables]
            if missing:
                return None, f"{', '.join(missing)} is not in the text (its cells were lost)"
            for ent, label in labels.items():
                xs, base = [], []
                for tname in src["tables"]:
                    t = tables[tname]
                    for (i, j), v in t.cells.items():
                        lab = t.rows[i] if src["axis"] == "row" else t.last[j]
                        if lab != label:
                            continue
                        col = t.columns[j]
                        if src.get("columns") and not re.search(src["columns"], col):
                            if src.get("minus") and re.search(src["minus"], col):
                                base.append(v)
                            continue
                        if src.get("minus") and re.search(src["minus"], col):
                            base.append(v)
                            continue
                        xs.append(v)
                if xs:
                    vals[ent] = mean(xs) - (mean(base) if src.get("minus") and base else 0)
        else:
            df = results.get(src["result"])
            if df is None:
                return None, f"{src['result']} is not an input of this run (its data are not configured)"
            wheres = src["where"] if isinstance(src["where"], list) else [src["where"]]
            for ent, key in labels.items():
                xs = []
                for w in wheres:
                    sel = df
                    for k, v in {**w, **extra}.items():
                        sel = sel[sel[k].astype(str) == str(v)]
                    sel = sel[sel[src["key"]].astype(str) == str(key)]
                    if len(sel) == 1:
                        xs.append(float(sel[src.get("column", "value")].iloc[0]))
                if len(xs) == len(wheres):
                    vals[ent] = mean(xs)
        if measure.get("transform") == "abs":
            vals = {k: abs(v) for k, v in vals.items()}
        if not vals:
            return None, f"no value of {measure['name']} in its data"
        out[vname] = vals
    return out, ""


# ---- the rules ----

class Context:
    """What the rules read: the lexicon of one paper, its text's tables and the result tables."""

    def __init__(self, lexicon: dict, paper: str, tables: dict[str, Table], results: dict[str, pd.DataFrame]):
        self.lex, self.paper, self.tables, self.results = lexicon, paper, tables, results
        self.kinds = (lexicon["entities"].get(paper) or {})
        self.measures = lexicon["measures"].get(paper) or []
        self.resolutions = lexicon.get("resolutions") or {}

    def measure_for(self, s: Sentence, clause: str, kind: str, anchor: int = -1) -> tuple[dict | None, str]:
        """The measure a clause is about: those of the entity kind whose words the clause names
        (else the sentence, else the measure its paragraph named last), at a place it refers to when
        several fit."""
        cands = [m for m in self.measures if m["entity"] == kind]
        unavailable = ((self.lex.get("unavailable") or {}).get(self.paper) or {}).get(kind)
        if not cands:
            return None, f"no measure of {kind}s is in the lexicon" + (f": {unavailable}" if unavailable else "")
        for text in (clause, s.text, s.measure_hint):
            hit = [m for m in cands if _words_match(m, text)]
            if hit:
                break
        else:
            return None, f"the sentence names no measure of {kind}s the lexicon knows"
        if len(hit) > 1:
            best = max(_specificity(m, text) for m in hit)
            hit = [m for m in hit if _specificity(m, text) == best]
        if len(hit) > 1 and anchor >= 0 and text is clause:
            # the measure named nearest the word the statement turns on ("gaps vary ..., with X showing the
            # largest contrast": contrast)
            dist = {m["name"]: min(abs(x.start() - anchor) for w in _words(m) for x in re.finditer(f"(?i){w}", clause))
                    for m in hit}
            near = min(dist.values())
            hit = [m for m in hit if dist[m["name"]] == near]
        if len(hit) > 1 and s.refs:
            at = [m for m in hit if set(m.get("places") or []) & set(s.refs)]
            hit = at or hit
        if len(hit) > 1:
            return None, f"several measures fit: {', '.join(m['name'] for m in hit)}"
        fits, why = self.fits(hit[0], s)
        return (hit[0], "") if fits else (None, why + (f" ({unavailable})" if unavailable else ""))

    def fits(self, m: dict, s: Sentence) -> tuple[bool, str]:
        """Whether a measure's data are what the sentence is about: its section (the measure's
        ``sections``) and the tables / figures it refers to (the measure's ``places``)."""
        if s.place and s.place in (m.get("places") or []):
            return True, ""   # a caption of the measure's own table / figure
        if m.get("sections") and not re.fullmatch(m["sections"], s.section):
            return False, (f"{m['name']} is the data of {', '.join(m.get('places') or [])}; the sentence is in "
                           f"section {s.section}, about other data")
        if s.refs and m.get("places") and not set(s.refs) & set(m["places"]):
            return False, f"it refers to {', '.join(s.refs)}, {m['name']} is the data of {', '.join(m['places'])}"
        return True, ""


def _words(m: dict) -> list[str]:
    w = m.get("words") or []
    return [w] if isinstance(w, str) else list(w)


def _words_match(m: dict, text: str) -> bool:
    return bool(text) and bool(_words(m)) and all(re.search(f"(?i){w}", text) for w in _words(m))


def _specificity(m: dict, text: str) -> int:
    return len(_words(m))


def _row(rule, s: Sentence, status, evidence, entities=(), measure="", resolution=""):
    return {"rule": rule, "paper": s.paper, "key": s.key, "section": s.section, "place": ", ".join(s.refs),
            "line": s.line, "column": s.column, "sentence": s.text, "entities": ", ".join(entities),
            "measure": measure, "status": status, "evidence": evidence, "resolution": resolution}


def clauses(text: str) -> list[str]:
    return [c for c in CLAUSE_SPLIT.split(text) if c and c.strip()]


def _ranking(vals: dict[str, float], reverse: bool) -> str:
    order = sorted(vals.items(), key=lambda kv: kv[1], reverse=reverse)
    return " > ".join(f"{k} {v:.4g}" for k, v in order) if reverse else " < ".join(f"{k} {v:.4g}" for k, v in order)


def _top(vals: dict[str, float], named: list[str], highest: bool) -> tuple[bool, str]:
    """The named entities are the top (bottom) k of ``vals``: each at least as far as the k-th value."""
    k = len(named)
    order = sorted(vals.values(), reverse=highest)
    kth = order[k - 1]
    ok = all((vals[n] >= kth) if highest else (vals[n] <= kth) for n in named)
    return ok, _ranking(vals, highest)


def _direction(word: str, measure: dict) -> tuple[bool | None, str]:
    """True: the highest values; False: the lowest; None: undecided (best/worst of a measure whose
    direction the lexicon does not give)."""
    w = word.lower()
    if re.fullmatch(MAX_WORDS, w):
        return True, ""
    if re.fullmatch(MIN_WORDS, w):
        return False, ""
    better = measure.get("better")
    if better is None:
        return None, (f"'{word}' needs to know whether higher or lower {measure['name']} is better (the lexicon "
                      "does not say)")
    best = re.fullmatch(BEST_WORDS, w) is not None
    return (best == (better == "higher")), ""


def _with_measure(rule, s, clause, ents, ctx, anchor=-1):
    """(measure, {variant: values}) for a clause naming ``ents``, or a row saying why not."""
    kinds = list(dict.fromkeys(e.kind for e in ents))
    if len(kinds) > 1:
        return None, _row(rule, s, "undecided", f"it names entities of several kinds ({', '.join(kinds)})",
                          [e.name for e in ents])
    measure, why = ctx.measure_for(s, clause, kinds[0], anchor)
    if measure is None:
        return None, _row(rule, s, "undecided", why, [e.name for e in ents])
    vals, why = resolve_measure(measure, ctx.tables, ctx.results)
    if vals is None:
        return None, _row(rule, s, "undecided", why, [e.name for e in ents], measure["name"])
    lacking = sorted({e.name for e in ents} - set.intersection(*[set(v) for v in vals.values()]))
    if lacking:
        return None, _row(rule, s, "undecided", f"{', '.join(lacking)}: not in the data of {measure['name']}",
                          [e.name for e in ents], measure["name"])
    return (measure, vals), None


def _each(vals: dict, fn) -> tuple[str, str]:
    """(status, shown) of ``fn(values) -> (holds, shown)`` over a measure's variants: ``each`` variants
    must all hold; ``readings`` (keys ``reading: <name>``) give ``conditional`` when some hold."""
    res = {k: fn(v) for k, v in vals.items()}
    shown = "; ".join(f"{k}: {r[1]}" if len(res) > 1 else r[1] for k, r in res.items())
    held = [k for k, r in res.items() if r[0]]
    if any(k.startswith("reading: ") for k in res) and held and len(held) < len(res):
        failed = [k[9:] for k in res if k not in held]
        return "conditional", shown + f"; holds by {', '.join(k[9:] for k in held)}, not by {', '.join(failed)}"
    return ("holds" if len(held) == len(res) else "does not hold"), shown


def rule_extreme(s: Sentence, ctx: Context) -> list[dict]:
    rows = []
    for clause in clauses(s.text):
        hits = list(EXTREME.finditer(clause))
        all_ents = find_entities(clause, ctx.kinds)
        for hit in hits:
            # each entity belongs to the extreme word nearest to it ("DeepSeek performs best and Qwen worst")
            ents = [e for e in all_ents if min(hits, key=lambda h: (abs(h.start() - e.start), h.start() > e.start))
                    is hit]
            follow = re.search(r"(?i)\bfollowed by\b", clause[hit.end():])
            if follow:   # "X is the most ..., followed by Y": Y is the ordering's, not the extreme's
                ents = [e for e in ents if e.start < hit.end() + follow.start()] or ents
            if not ents:
                rows.append(_row("extreme", s, "undecided", f"'{hit.group(1)}' names no entity the lexicon knows "
                                 "(models, countries, traits, ...)"))
                continue
            got, bad = _with_measure("extreme", s, clause, ents, ctx, hit.start())
            if bad:
                rows.append(bad)
                continue
            measure, vals = got
            highest, why = _direction(hit.group(1), measure)
            if highest is None:
                rows.append(_row("extreme", s, "undecided", why, [e.name for e in ents], measure["name"]))
                continue
            sign = re.match(r"\s+(positive|negative)\b", clause[hit.end():])
            named = list(dict.fromkeys(e.name for e in ents))

            def check(v, named=named, highest=highest, sign=sign):
                if sign:  # "the smallest positive gap": among the entities of that sign
                    v = {k: x for k, x in v.items() if (x > 0) == (sign.group(1) == "positive")}
                    if not set(named) <= set(v):
                        return False, f"{', '.join(set(named) - set(v))} not {sign.group(1)}: {_ranking(v, True)}"
                if len(named) >= len(v):
                    return False, f"it names all {len(v)}"
                ok, shown = _top(v, named, highest)
                return ok, f"{'top' if highest else 'bottom'} {len(named)}? {shown}"
            ok, shown = _each(vals, check)
            if "names all" in shown:
                rows.append(_row("extreme", s, "undecided", f"it names every entity of {measure['name']}", named,
                                 measure["name"]))
                continue
            rows.append({**_row("extreme", s, ok,
                                f"'{hit.group(1)}' {', '.join(named)} of {measure['name']}: {shown}", named,
                                measure["name"]), "_dir": "top" if highest else "bottom"})
    return rows


def rule_stand_out(s: Sentence, ctx: Context) -> list[dict]:
    rows = []
    for clause in clauses(s.text):
        hit = STAND_OUT.search(clause)
        if not hit:
            continue
        after = clause[hit.start():]
        ents = find_entities(after, ctx.kinds)
        if not ents:
            rows.append(_row("stand out", s, "undecided",
                             f"'{hit.group(1)}' names no entity the lexicon knows after it"))
            continue
        got, bad = _with_measure("stand out", s, clause, ents, ctx)
        if bad:
            rows.append(bad)
            continue
        measure, vals = got
        named = list(dict.fromkeys(e.name for e in ents))
        head = clause[:hit.start()]
        up = re.search(r"(?i)\b(?:higher|more|strong\w*|great\w*|larg\w*|high)\b", head)
        down = re.search(r"(?i)\b(?:lower|less|low|moderate|weak\w*|small\w*)\b", head)
        if hit.group(1).lower() in ("e.g.", "such as") and not (up or down):
            rows.append(_row("stand out", s, "undecided", f"'{hit.group(1)}' gives examples of a kind, not of high or "
                             "low values (no word of size before it)", named, measure["name"]))
            continue
        last = max((x for x in (up, down) if x), key=lambda x: x.start(), default=None)
        highest = (last is up) if last else measure.get("better") != "lower"

        def check(v, named=named, highest=highest):
            ok, shown = _top(v, named, highest)
            return ok, f"{'top' if highest else 'bottom'} {len(named)} of {len(v)}? {shown}"
        ok, shown = _each(vals, check)
        rows.append({**_row("stand out", s, ok,
                            f"'{hit.group(1)}' {', '.join(named)} of {measure['name']}: {shown}", named,
                            measure["name"]), "_dir": "top" if highest else "bottom"})
    return rows


def rule_ordering(s: Sentence, ctx: Context) -> list[dict]:
    rows = []
    for clause in clauses(s.text):
        hit = ORDER.search(clause)
        if not hit:
            continue
        before, after = clause[:hit.start()], clause[hit.end():]
        first = find_entities(before, ctx.kinds)
        second = find_entities(after, ctx.kinds)
        if not first or not second:
            rows.append(_row("ordering", s, "undecided", f"'{hit.group(1)}' without an entity the lexicon knows on "
                             "both sides", [e.name for e in first + second]))
            continue
        got, bad = _with_measure("ordering", s, clause, first + second, ctx)
        if bad:
            rows.append(bad)
            continue
        measure, vals = got
        word = hit.group(1).lower()
        ext = EXTREME.search(before)
        if word == "followed by":
            highest = _direction(ext.group(1), measure)[0] if ext else (measure.get("better") != "lower")
        elif re.match(r"(more|less)\b", word) and not re.match(r"(more|less)\s+than", word):
            # "less rigid than": the adjective's sense in this measure (its labels), else undecided
            adj = word.split()[1]
            if re.fullmatch(r"(?i)higher|larger|greater|bigger", adj):
                sense = True
            elif measure.get("high") and re.search(f"(?i){measure['high']}", adj):
                sense = True
            elif measure.get("low") and re.search(f"(?i){measure['low']}", adj):
                sense = False
            else:
                rows.append(_row("ordering", s, "undecided", f"'{word}': the lexicon does not say how '{adj}' "
                                 f"relates to {measure['name']}", [e.name for e in first + second], measure["name"]))
                continue
            highest = sense == word.startswith("more")
        elif re.match(r"(lower|smaller|weaker|less)\b", word):
            highest = False
        elif re.match(r"(better|worse|outperform)", word):
            highest = (measure.get("better") != "lower") == word.startswith(("better", "outperform"))
        else:
            highest = True
        a = list(dict.fromkeys(e.name for e in first))
        b = list(dict.fromkeys(e.name for e in second if e.name not in a))
        if highest is None or not b:
            rows.append(_row("ordering", s, "undecided", "the direction of the order is not given", a + b,
                             measure["name"]))
            continue

        def check(v, a=a, b=b, highest=highest, follow=(word == "followed by")):
            sign = 1 if highest else -1
            ok = min(sign * v[x] for x in a) > max(sign * v[y] for y in b)
            if follow and ok:   # "X, followed by Y": Y next after X
                rest = [k for k in v if k not in a + b]
                ok = not rest or min(sign * v[y] for y in b) >= max(sign * v[r] for r in rest)
            return ok, _ranking(v, highest)
        ok, shown = _each(vals, check)
        rel = ">" if highest else "<"
        rows.append(_row("ordering", s, ok,
                         f"{', '.join(a)} {rel} {', '.join(b)} ({word}) in {measure['name']}: {shown}", a + b,
                         measure["name"]))
    return rows


LABEL_KINDS = ((2, "high"), (1, "middle"), (0, "low"), (3, "positive"), (-1, "negative"))


def _label_groups(clause: str, m: dict, kinds: dict) -> list[tuple[int, str, list[Entity]]]:
    """(rank, label, entities) of the groups one clause sorts entities of ``m``'s kind into by the
    labels of ``m`` (``high``, ``middle``, ``low``, ``positive``, ``negative``): one label in the clause
    takes all its entities ("Qwen, DeepSeek and Mistral favour norms"); several take the entities after
    each ("(1) norm-dominant (Mistral, DeepSeek, Qwen), (2) mixed-sensitivity (OLMo) ...", "strong yields
    for C and O, with moderate to low gains for N and A")."""
    labels = sorted(((lm.start(), lm.end(), rank, lm.group(0)) for rank, k in LABEL_KINDS if m.get(k)
                     for lm in re.finditer(f"(?i){m[k]}", clause)), key=lambda x: x[0])
    ents = [e for e in find_entities(clause, kinds) if e.kind == m["entity"]]
    if not labels or not ents:
        return []
    if len(labels) == 1:
        return [(labels[0][2], labels[0][3], ents)]
    out = []
    for (s0, e0, rank, text), nxt in zip(labels, [*labels[1:], (len(clause),)]):
        group = [e for e in ents if e0 <= e.start < nxt[0]]
        if group:
            out.append((rank, text, group))
    return out


def rule_group_labels(s: Sentence, ctx: Context) -> list[dict]:
    rows = _region_labels(s, ctx)
    sorted_groups = []
    for m in ctx.measures:
        for clause in clauses(s.text):
            for rank, label, ents in _label_groups(clause, m, ctx.kinds):
                sorted_groups.append((m, rank, label, ents))
    if not sorted_groups:
        return rows
    by_measure: dict[str, list] = {}
    for m, rank, label, ents in sorted_groups:
        by_measure.setdefault(m["name"], []).append((m, rank, label, ents))
    for name, gs in by_measure.items():
        m = gs[0][0]
        named = [e.name for _, _, _, es in gs for e in es]
        labels = "; ".join(f"{lab}: {', '.join(e.name for e in es)}" for _, _, lab, es in gs)
        fits, why = ctx.fits(m, s)
        if not fits:
            rows.append(_row("group labels", s, "undecided", f"{labels}: {why}", named, name))
            continue
        if len({r for _, r, _, _ in gs if r in (0, 1, 2)}) == 1 and not any(r in (3, -1) for _, r, _, _ in gs):
            rows.append(_row("group labels", s, "undecided", f"{labels}: one group only, no other group it is "
                             "set against", named, name))
            continue
        vals, why = resolve_measure(m, ctx.tables, ctx.results)
        if vals is None:
            rows.append(_row("group labels", s, "undecided", why, named, name))
            continue
        lacking = sorted(set(named) - set.intersection(*[set(v) for v in vals.values()]))
        if lacking:
            rows.append(_row("group labels", s, "undecided", f"{', '.join(lacking)}: not in the data of {name}",
                             named, name))
            continue

        def check(v, gs=gs):
            problems = []
            signed = [(r, lab, es) for _, r, lab, es in gs if r in (3, -1)]
            tiers = sorted([(r, lab, es) for _, r, lab, es in gs if r in (0, 1, 2)], key=lambda x: -x[0])
            for r, lab, es in signed:
                bad = [e.name for e in es if (v[e.name] > 0) != (r == 3)]
                if bad:
                    problems.append(f"{', '.join(bad)} not {lab}")
            for (r1, l1, e1), (r2, l2, e2) in zip(tiers, tiers[1:]):
                lo = min(v[e.name] for e in e1)
                hi = max(v[e.name] for e in e2)
                if not lo > hi:
                    problems.append(f"'{l1}' ({', '.join(e.name for e in e1)}) min {lo:.4g} not above "
                                    f"'{l2}' ({', '.join(e.name for e in e2)}) max {hi:.4g}")
            return not problems, ("; ".join(problems) + " | " if problems else "") + _ranking(v, True)
        ok, shown = _each(vals, check)
        rows.append(_row("group labels", s, ok, f"{labels} by {name}: {shown}",
                         named, name))
    return rows


def _region_labels(s: Sentence, ctx: Context) -> list[dict]:
    """A region label given to named countries ("East Asian countries i.e. Japan, India"): each
    country's region in the lexicon's region table (its source named there)."""
    regions = ctx.lex.get("regions") or {}
    table, labels = regions.get("countries") or {}, regions.get("labels") or {}
    rows = []
    for label, spec in labels.items():
        for m in re.finditer(rf"(?i)\b({spec['pattern']})\b[^.;()]{{0,25}}?\b(?:i\.e\.|namely|such as|like|:|\()"
                             r"([^.;()]*(?:\([^()]*\))?[^.;()]*)", s.text):
            names = [e for e in find_entities(m.group(2), {"country": ctx.kinds.get("country", {})})]
            stop = re.search(rf"(?i)\b(?:{'|'.join(x['pattern'] for x in labels.values())})\b", m.group(2))
            if stop:   # the next label ("... and Africa i.e. South Africa") starts another group
                names = [e for e in names if e.start < stop.start()]
            if not names:
                continue
            bad, shown = [], []
            for e in names:
                facts = table.get(e.name)
                if not facts:
                    bad.append(f"{e.name}: not in the region table")
                    continue
                got = facts.get(spec["field"])
                shown.append(f"{e.name}: {got}")
                if got not in spec["values"]:
                    bad.append(f"{e.name} is {got}")
            status = "undecided" if any("not in the region table" in b for b in bad) else (
                "does not hold" if bad else "holds")
            rows.append(_row("group labels", s, status,
                             f"'{m.group(1)}' for {', '.join(e.name for e in names)} by {spec['field']} "
                             f"({regions.get('source', '')}): {'; '.join(shown)}"
                             + (f" | {'; '.join(bad)}" if bad else ""), [e.name for e in names], "region"))
    return rows


def _list_after(text: str, rest: str = "") -> tuple[list[str], str] | None:
    """The items of a list right after a noun: "(A, B and C)", ": A, B, and C", "— A, B", "i.e. A, B",
    or an enumeration (1) ... (2) ...; (items, how it was read)."""
    m = re.match(r"\s*(?:\(([^()]*)\)|(?::|—|–|-{1,2}|,?\s*i\.e\.,?|,?\s*namely)\s*(.*))", text)
    if not m:
        return None
    body = m.group(1) if m.group(1) is not None else m.group(2)
    if body is not None and re.match(r"\s*\(1\)", body):
        # an enumeration (1) ... (2) ..., which may run on past the sentence: its consecutive markers
        run = 0
        for k in (int(k) for k in re.findall(r"\((\d+)\)", rest or body)):
            if k != run + 1:
                break
            run = k
        return [f"({k})" for k in range(1, run + 1)], "its enumeration"
    if body is None or not body.strip():
        return None
    body = re.sub(r"\([^()]*\)", "", body)
    body = re.split(r"—|–|\s-\s|\b(?:which|that|to|where|with|across|for|thus|when|so|because|by|as)\b", body)[0]
    # the list ends with the item after its conjunction ("A, B, and C, thus ..."; "A or B, thus ...")
    conj = re.search(r"(?:,\s*|\s)(?:and|or)\s", body)
    if conj:
        end = body.find(",", conj.end())
        body = body if end < 0 else body[:end]
    items = [x.strip(" ,.") for x in re.split(r",|\band\b|\bor\b", body) if x.strip(" ,.")]
    if len(items) < 2:
        return None
    return items, "the list after it"


def rule_count_in_words(s: Sentence, ctx: Context) -> list[dict]:
    rows = []
    regions = ctx.lex.get("regions") or {}
    nouns = ctx.lex.get("count_nouns") or {}
    for m in re.finditer(r"(?i)(?<!Big )\b(" + "|".join(NUMBER_WORDS) + r")(?:[- ]([a-z]+(?:[- ][a-z]+)?))??\s+"
                         r"([A-Za-z]+?(?:ies|s|es))\b", s.text):
        word, noun = m.group(1).lower(), m.group(3).lower()
        if noun.rstrip("s") in ("time", "step", "stage", "way", "year", "minute", "point", "allow", "a", "i",
                                "ha", "thi", "it", "wa") or \
                (m.group(2) or "").lower() in ("big",):   # "the Big Five traits": a name
            continue
        n = NUMBER_WORDS[word]
        got = _list_after(s.text[m.end():], s.rest[s.rest.find(m.group(0)) + len(m.group(0)):]
                          if m.group(0) in s.rest else "")
        shown = f"'{m.group(0)}'"
        if got is None:
            rows.append(_row("count in words", s, "undecided", f"{shown}: no list or enumeration follows it",
                             measure=noun))
            continue
        items, how = got
        kind = nouns.get(noun)
        if kind and regions.get("countries") and kind.get("map") in ("continent", "m49_region"):
            ents = find_entities(", ".join(items), {"country": ctx.kinds.get("country", {})})
            if len(ents) == len(items):
                readings = []
                for fld in kind["readings"]:
                    vals = {regions["countries"].get(e.name, {}).get(fld) for e in ents}
                    readings.append((fld, len(vals) == n, f"{fld}: {len(vals)} ({', '.join(sorted(map(str, vals)))})"))
                held = [f for f, ok, _ in readings if ok]
                status = "holds" if len(held) == len(readings) else "conditional" if held else "does not hold"
                ev = f"{shown} vs the {len(items)} countries of {how}, as {noun}: " + "; ".join(t for *_, t in readings)
                if status == "conditional":
                    ev += f"; holds by {', '.join(held)}, not by {', '.join(f for f, ok, _ in readings if not ok)}"
                rows.append(_row("count in words", s, status, ev + f" ({regions.get('source', '')})",
                                 [e.name for e in ents], noun))
                continue
        counted = [NUMBER_WORDS.get(x.split()[0].lower()) for x in items]
        if len(items) > 1 and all(counted):   # "five tools: three instruments (...) and two benchmarks (...)"
            total = sum(counted)
            rows.append(_row("count in words", s, "holds" if total == n else "does not hold",
                             f"{shown} vs the counts of {how}: {' + '.join(map(str, counted))} = {total}",
                             measure=noun))
            continue
        ok = len(items) == n
        rows.append(_row("count in words", s, "holds" if ok else "does not hold",
                         f"{shown} vs {how}: {len(items)} ({'; '.join(items)})", measure=noun))
    return rows


def rule_external_dataset(s: Sentence, ctx: Context) -> list[dict]:
    """A dataset the lexicon names, with a count in words of a kind its data hold ("six countries",
    and the list after it): the count, and the list, against the data's set."""
    rows = []
    datasets = (ctx.lex.get("datasets") or {}).get(ctx.paper) or {}
    for name, spec in datasets.items():
        if not re.search(spec["pattern"], s.text):
            continue
        for kind, src in (spec.get("sets") or {}).items():
            for w in re.finditer(r"(?i)(?<!Big )\b(" + "|".join(NUMBER_WORDS) + r")\s+(?:[A-Za-z-]+\s+){0,2}?("
                                 + src["noun"] + r")\b", s.text):
                n = NUMBER_WORDS[w.group(1).lower()]
                got = _list_after(s.text[w.end():])
                ents = [e for e in find_entities(", ".join(got[0]), ctx.kinds) if e.kind == kind] if got else []
                if src.get("result") not in ctx.results:
                    rows.append(_row("external dataset", s, "undecided",
                                     f"{name}: {src.get('result')} is not an input of this run", [e.name for e in ents],
                                     f"{name} {kind}s"))
                    continue
                df = ctx.results[src["result"]]
                sel = df
                for k, v in (src.get("where") or {}).items():
                    sel = sel[sel[k].astype(str) == str(v)]
                keys = {str(x) for x in sel[src["column"]]} - set(map(str, src.get("exclude") or []))
                inv = {v: k for k, v in (src.get("labels") or {}).items()}
                in_data = {inv.get(k, k) for k in keys}
                ok = n == len(in_data)
                parts = [f"'{w.group(0)}' vs {len(in_data)} in the data ({', '.join(sorted(in_data))})"]
                if ents:
                    named = {e.name for e in ents}
                    ok &= named == in_data
                    parts.append(f"the list names {', '.join(sorted(named))}")
                rows.append(_row("external dataset", s, "holds" if ok else "does not hold",
                                 f"{name} ({src['result']}): " + "; ".join(parts), [e.name for e in ents],
                                 f"{name} {kind}s"))
        for fact in spec.get("no_data") or []:
            if re.search(fact["pattern"], s.text):
                rows.append(_row("external dataset", s, "undecided", f"{name}: {fact['why']}", measure=name))
    return rows


def rule_caption_vs_text(rows_of: dict, sents: list[Sentence]) -> list[dict]:
    """A caption's statement (extreme / stand out) against the text's statements of the same rule and
    measure about the same table or figure: the same entities, or not."""
    out = []
    by_key = {s.key: s for s in sents}
    for s in sents:
        if not s.place:
            continue
        mine = [r for r in rows_of.get(s.key, []) if r.get("_dir") and r["entities"]]
        for r in mine:
            others = [(t, x) for t in sents if not t.place and s.place in t.refs and t.paper == s.paper
                      for x in rows_of.get(t.key, []) if x.get("_dir") == r["_dir"] and x["measure"] == r["measure"]]
            if not others:
                out.append(_row("caption vs text", s, "undecided",
                                f"the text names no {r['_dir']} entities of {r['measure']} about {s.place}",
                                r["entities"].split(", "), r["measure"]))
                continue
            a = set(r["entities"].split(", "))
            for t, x in others:
                b = set(x["entities"].split(", "))
                status = "holds" if a == b else "does not hold" if not a & b else "undecided"
                out.append(_row("caption vs text", s, status,
                                f"caption of {s.place}: {', '.join(sorted(a))} | text ({t.key}): {', '.join(sorted(b))}"
                                + ("" if status != "undecided" else " (partly the same)"),
                                sorted(a | b), r["measure"]))
    _ = by_key
    return out


def check_paper(text: str, paper: str, lexicon: dict, results: dict[str, pd.DataFrame]) -> list[dict]:
    """Every statement in words of one paper's text, by rule."""
    skip = (lexicon.get("skip_sections") or {}).get(paper, "")
    sents = sentences(text, paper, skip)
    ctx = Context(lexicon, paper, text_tables(text), results)
    hint, para = "", -1
    rows_of: dict[str, list[dict]] = {}
    for s in sents:
        if s.paragraph != para:
            hint, para = "", s.paragraph
        s.measure_hint = hint
        rows = []
        for fn in (rule_extreme, rule_ordering, rule_group_labels, rule_stand_out, rule_count_in_words,
                   rule_external_dataset):
            rows += fn(s, ctx)
        rows_of[s.key] = rows
        named = [m for m in ctx.measures if _words_match(m, s.text)]
        if named:
            hint = " ".join(w for m in named[:1] for w in _words(m))
    out = [r for rs in rows_of.values() for r in rs]
    out += rule_caption_vs_text(rows_of, sents)
    seen: dict[tuple, int] = {}
    for r in out:   # a check's key: its sentence's key and its number among that rule's checks of the sentence
        seen[(r["rule"], r["key"])] = seen.get((r["rule"], r["key"]), 0) + 1
        r["key"] = f"{r['key']} #{seen[(r['rule'], r['key'])]}"
        r["resolution"] = ctx.resolutions.get(f"{r['rule']} | {r['key']}", "")
    return out


def check_papers(texts: dict[str, str], lexicon: dict, results: dict[str, pd.DataFrame]) -> pd.DataFrame:
    rows = [r for paper, text in texts.items() for r in check_paper(text, paper, lexicon, results)]
    return pd.DataFrame(rows, columns=COLUMNS)


def result_files(lexicon: dict) -> list[str]:
    """The result tables the lexicon's measures and datasets read."""
    out = {m["source"]["result"] for ms in lexicon["measures"].values() for m in ms if "result" in m["source"]}
    out |= {src["result"] for ds in (lexicon.get("datasets") or {}).values() for spec in ds.values()
            for src in (spec.get("sets") or {}).values() if src.get("result")}
    return sorted(out)


def summary(table: pd.DataFrame) -> pd.DataFrame:
    """Counts per paper and rule: candidates and statuses (undecided ones with their reasons apart)."""
    rows = []
    for (paper, rule), g in table.groupby(["paper", "rule"]):
        for status, h in g.groupby("status"):
            rows.append({"paper": paper, "rule": rule, "status": status, "count": len(h)})
    return pd.DataFrame(rows, columns=["paper", "rule", "status", "count"])


def _isnan(x) -> bool:
    return isinstance(x, float) and math.isnan(x)


def paper_texts(lexicon: dict, folder: str | Path) -> dict[str, str]:
    """{paper: its text} of the papers the lexicon names (``papers``), from ``folder``."""
    out = {}
    for paper, name in lexicon["papers"].items():
        p = Path(folder) / name
        if not p.exists():
            raise StatementsError(f"paper text {p} ({paper}) does not exist")
        out[paper] = p.read_text(encoding="utf-8")
    return out
