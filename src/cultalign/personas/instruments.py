"""Personality instruments as one item table, each with its scoring scheme.

Item table columns: instrument, item_id, trait (O/C/E/A/N), format
(``statement``: self-report statement on a 5-point scale; ``choice``: a
situation/question with behavioural options), context, question, options
(JSON list, canonical order), scores (JSON list: the Likert score each option
gives on its trait, reverse keying already applied), keyed (plus/minus for
statements).  Binary instruments (TRAIT, Big5Chat) score high options 5 and
low options 1, as the paper does.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Sequence

import pandas as pd

from cultalign.core.inputs import InputError, read_json, read_jsonl, read_table
from cultalign.core.tables import read_tsv

from .common import LEVEL_SCORES, LEVELS, trait_code

log = logging.getLogger(__name__)

COLUMNS = ["instrument", "item_id", "trait", "format", "context", "question", "options", "scores", "keyed"]

AGREE_LABELS = ["Disagree strongly", "Disagree a little", "Neither agree nor disagree", "Agree a little",
                "Agree strongly"]
ACCURATE_LABELS = ["Very inaccurate", "Moderately inaccurate", "Neither accurate nor inaccurate",
                   "Moderately accurate", "Very accurate"]

# The published BFI-44 scoring key (John & Srivastava 1999): item number -> (trait, reverse-keyed).
_BFI = {"E": [1, -6, 11, 16, -21, 26, -31, 36], "A": [-2, 7, -12, 17, 22, -27, 32, -37, 42],
        "C": [3, -8, 13, -18, -23, 28, 33, 38, -43], "N": [4, -9, 14, 19, -24, 29, -34, 39],
        "O": [5, 10, 15, 20, 25, 30, -35, 40, -41, 44]}
BFI44_KEY = {abs(i): (t, i < 0) for t, items in _BFI.items() for i in items}


class InstrumentError(InputError):
    """An instrument file that does not match its format (file, line, field and config key named)."""


class _Src(str):
    """An instrument file's name that also knows the line of each row (``read_table``); a JSON list
    has none, and its rows are named by position."""

    lines: list[int] = []


def _src(path, df: pd.DataFrame | None = None) -> _Src:
    s = _Src(str(path))
    s.lines = list(df.attrs.get("lines") or []) if df is not None else []
    return s


def _row_err(src, k: int, field: str | None, problem: str) -> InstrumentError:
    """The error of row ``k`` (0-based) of ``src``: its line where known, else its record number."""
    lines = getattr(src, "lines", None) or []
    if k < len(lines):
        return InstrumentError(str(src), problem, row=lines[k], field=field)
    return InstrumentError(str(src), f"record {k + 1}: {problem}", field=field)


def _statement_rows(instrument: str, texts, traits, minus, labels, ids=None, src: str = "") -> pd.DataFrame:
    rows = []
    for k, (text, t, m) in enumerate(zip(texts, traits, minus)):
        if not isinstance(text, str) or not text.strip():
            raise _row_err(src, k, "text", "empty value")
        scores = [6 - s for s in range(1, 6)] if m else list(range(1, 6))
        rows.append({"instrument": instrument, "item_id": str(ids[k]) if ids is not None else f"{k + 1:03d}",
                     "trait": t, "format": "statement", "context": "",
                     "question": text.strip().rstrip(".").strip(), "options": json.dumps(labels),
                     "scores": json.dumps(scores), "keyed": "minus" if m else "plus"})
    return pd.DataFrame(rows, columns=COLUMNS)


def _codes(series, src, field, parse=trait_code):
    out = []
    for k, v in enumerate(series):
        try:
            out.append(parse(v))
        except ValueError as e:
            raise _row_err(src, k, field, f"{e}") from e
    return out


def _flag(series, src, field, minus_values=("R", "minus", "-")):
    out = []
    for k, v in enumerate(series):
        s = str(v).strip()
        if s not in ("F", "R", "plus", "minus", "+", "-"):
            raise _row_err(src, k, field, f"expected F/R or plus/minus, got {v!r}")
        out.append(s in minus_values)
    return out


def load_bfi(path: str | Path, key: str) -> pd.DataFrame:
    """BFI-44 (columns Text, Key, Reverse).  ``key=published`` scores with the published key by item
    position; ``key=file`` uses the file's Key/Reverse columns (the audit compares the two)."""
    df = read_table(path, required=["Text"] + (["Key", "Reverse"] if key != "published" else []))
    src = _src(path, df)
    if key == "published":
        if len(df) != 44:
            raise InstrumentError(src, f"expected 44 BFI items, found {len(df)}")
        traits = [BFI44_KEY[i + 1][0] for i in range(44)]
        minus = [BFI44_KEY[i + 1][1] for i in range(44)]
    else:
        traits = _codes(df["Key"], src, "Key")
        minus = _flag(df["Reverse"], src, "Reverse")
    texts = [f"see myself as someone who {t.strip()}" for t in df["Text"]]
    return _statement_rows("bfi44", texts, traits, minus, AGREE_LABELS, src=src)


def load_ipip_csv(path: str | Path, instrument: str) -> pd.DataFrame:
    """CulturalPersonas' IPIP spreadsheets: ipip-120.csv (Key facet code, Reverse) or ipip-300.csv (Sign)."""
    df = read_table(path, required=["Text"])
    src = _src(path, df)
    if "Sign" not in df.columns and not {"Key", "Reverse"} <= set(df.columns):
        raise InstrumentError(path, f"expected a Sign column or Key and Reverse columns (found {list(df.columns)})",
                              row=1, field="Sign")
    if "Sign" in df.columns:
        traits = _codes([str(s).strip()[1:2] for s in df["Sign"]], src, "Sign")
        minus = [str(s).strip().startswith("-") for s in df["Sign"]]
    else:
        traits = _codes([str(s).strip()[:1] for s in df["Key"]], src, "Key")
        minus = _flag(df["Reverse"], src, "Reverse")
    return _statement_rows(instrument, list(df["Text"]), traits, minus, ACCURATE_LABELS, src=src)


def load_ipip_json(path: str | Path, instrument: str) -> pd.DataFrame:
    """IPIP-NEO item lists as JSON records with text, keyed (plus/minus), domain."""
    recs = read_json(path, expect=list)
    src = str(path)
    bad = [k for k, r in enumerate(recs) if not isinstance(r, dict)]
    if bad:
        raise _row_err(src, bad[0], None, f"expected an object, got {type(recs[bad[0]]).__name__}")
    traits = _codes([r.get("domain") for r in recs], src, "domain")
    minus = _flag([r.get("keyed") for r in recs], src, "keyed")
    return _statement_rows(instrument, [r.get("text") for r in recs], traits, minus, ACCURATE_LABELS, src=src)


def load_likert_tsv(path: str | Path, instrument: str) -> pd.DataFrame:
    """Project format: item_id, text, trait, keyed (plus/minus)."""
    df = read_table(path, sep="\t", dtype=str, required=["item_id", "text", "trait", "keyed"])
    src = _src(path, df)
    return _statement_rows(instrument, list(df["text"]), _codes(df["trait"], src, "trait"),
                           _flag(df["keyed"], src, "keyed"), ACCURATE_LABELS, ids=list(df["item_id"]), src=src)


def _choice_rows(instrument, df, src, context_fn, question_fn, option_cols, scores) -> pd.DataFrame:
    rows = []
    traits = _codes(df["trait"], src, "trait")
    for k, (_, r) in enumerate(df.iterrows()):
        opts = []
        for c in option_cols:
            v = r[c]
            if not isinstance(v, str) or not v.strip():
                raise _row_err(src, k, c, "empty value")
            opts.append(" ".join(v.split()))
        rows.append({"instrument": instrument, "item_id": f"{k:04d}", "trait": traits[k], "format": "choice",
                     "context": context_fn(r), "question": question_fn(r), "options": json.dumps(opts),
                     "scores": json.dumps(scores), "keyed": ""})
    return pd.DataFrame(rows, columns=COLUMNS)


def load_big5chat(path: str | Path) -> pd.DataFrame:
    df = read_table(path, required=["train_input", "trait", "high_output", "low_output"])
    return _choice_rows("big5chat", df, _src(path, df),
                        lambda r: f'Someone says to you: "{" ".join(str(r["train_input"]).split())}"',
                        lambda r: "How do you reply?", ["high_output", "low_output"], [5, 1])


# TRAIT (Lee et al. 2024): 8 traits (Big Five + Dark Triad), 1,000 items each, four options per
# item - two that express the trait strongly (response_high1/2) and two weakly (response_low1/2).
# The released forms: the CulturalPersonas baseline copy datasets/baselines/trait.csv (columns
# idx, split, trait, statement, situation, query, response_high1, response_high2,
# response_low1, response_low2; Big Five only, 5,000 rows), the TRAIT repository's TRAIT.json
# (records with personality, situation, query, the four responses) and the Hugging Face dataset
# mirlab/TRAIT (one parquet split per trait; records with personality, question, the four responses).
TRAIT_OPTIONS = ("response_high1", "response_high2", "response_low1", "response_low2")
TRAIT_SCORES = (5, 5, 1, 1)  # the paper's binary mapping: high -> 5, low -> 1
DARK_TRIAD = ("machiavellianism", "narcissism", "psychopathy")
# CulturalPersonas' mcs.py names for the same fields
_TRAIT_ALIASES = {"personality": "trait", "high1": "response_high1", "high2": "response_high2",
                  "low1": "response_low1", "low2": "response_low2"}


def _read_trait_table(path: Path) -> pd.DataFrame:
    suffix = path.suffix.lower()
    if suffix == ".csv":
        df = read_table(path, dtype=str, keep_default_na=False)
    elif suffix in (".json", ".jsonl"):
        lines = []
        if suffix == ".jsonl":
            pairs = read_jsonl(path)
            lines, recs = [i for i, _ in pairs], [r for _, r in pairs]
        else:
            recs = read_json(path)
        if isinstance(recs, dict):  # {split name: [records]}
            recs = [dict(r, personality=r.get("personality", k)) for k, rs in recs.items() for r in rs]
        if not isinstance(recs, list) or not all(isinstance(r, dict) for r in recs):
            raise InstrumentError(path, "expected a list of records (objects)")
        df = pd.DataFrame.from_records(recs).astype(object).where(lambda d: d.notna(), "")
        df.attrs["lines"] = lines
    elif suffix == ".parquet":
        try:
            df = pd.read_parquet(path)
        except ImportError as e:
            raise InstrumentError(path, f"reading parquet needs pyarrow or fastparquet ({e})") from e
    else:
        raise InstrumentError(path, "TRAIT file must be .csv, .json, .jsonl or .parquet")
    df = df.rename(columns={k: v for k, v in _TRAIT_ALIASES.items() if k in df.columns and v not in df.columns})
    if "question" in df.columns and "query" not in df.columns and "situation" in df.columns:
        df = df.rename(columns={"question": "query"})
    return df


def load_trait(path: str | Path, dark_triad: str = "exclude") -> pd.DataFrame:
    """TRAIT items in any of its released forms (see TRAIT_OPTIONS above), validated.

    Options keep the canonical order high1, high2, low1, low2 with scores 5, 5, 1, 1.  Context is
    the situation and question the query; a file with only ``question`` (the hub form, situation
    and query joined) gives an empty context.  Dark Triad items are outside the Big Five scale the
    paper compares: ``dark_triad="exclude"`` leaves them out and counts them in
    ``df.attrs["excluded"]`` (trait -> rows); ``"error"`` rejects them.  Any other trait label, an
    empty option or situation/query, or a duplicate ``idx`` raises, naming file, row and field."""
    path = Path(path)
    df = _read_trait_table(path).reset_index(drop=True)
    src = _src(path, df)
    missing = [c for c in ("trait", *TRAIT_OPTIONS) if c not in df.columns]
    has_text = ("query" in df.columns) or ("question" in df.columns)
    if missing or not has_text:
        need = missing + ([] if has_text else ["query or question"])
        raise InstrumentError(src, f"missing column(s) {need} (found {list(df.columns)})", row=1, field=need[0])
    if dark_triad not in ("exclude", "error"):
        raise ValueError(f"dark_triad must be 'exclude' or 'error', got {dark_triad!r}")
    rows, excluded, seen = [], {}, {}
    for k, r in df.iterrows():
        label = str(r["trait"]).strip()
        if label.lower() in DARK_TRIAD and dark_triad == "exclude":
            excluded[label] = excluded.get(label, 0) + 1
            continue
        try:
            t = trait_code(label)
        except ValueError as e:
            raise _row_err(src, k, "trait", f"{e}") from e
        if "query" in df.columns:
            context, question, qfield = str(r.get("situation", "")), str(r["query"]), "query"
            if "situation" in df.columns and not context.strip():
                raise _row_err(src, k, "situation", "empty value")
        else:
            context, question, qfield = "", str(r["question"]), "question"
        if not question.strip():
            raise _row_err(src, k, qfield, "empty value")
        opts = []
        for c in TRAIT_OPTIONS:
            v = r[c]
            if not isinstance(v, str) or not v.strip():
                raise _row_err(src, k, c, "empty value")
            opts.append(" ".join(v.split()))
        if len(set(opts)) < len(opts):
            raise _row_err(src, k, None, f"fields {list(TRAIT_OPTIONS)}: two options are identical")
        item_id = f"{k:04d}"
        if "idx" in df.columns and str(r["idx"]).strip():
            item_id = str(r["idx"]).strip()
            item_id = f"{int(item_id):04d}" if item_id.isdigit() else item_id
            if item_id in seen:
                first = seen[item_id]
                lines = getattr(src, "lines", None) or []
                where = f"line {lines[first]}" if first < len(lines) else f"record {first + 1}"
                raise _row_err(src, k, "idx", f"{item_id!r} repeats the item of {where}")
            seen[item_id] = k
        rows.append({"instrument": "trait", "item_id": item_id, "trait": t, "format": "choice",
                     "context": " ".join(context.split()), "question": " ".join(question.split()),
                     "options": json.dumps(opts), "scores": json.dumps(list(TRAIT_SCORES)), "keyed": ""})
    if not rows:
        raise InstrumentError(src, f"no Big Five items (excluded: {excluded})")
    out = pd.DataFrame(rows, columns=COLUMNS)
    out.attrs["excluded"] = excluded
    return out


def trait_native_scores(item_probs: pd.DataFrame) -> pd.DataFrame:
    """TRAIT's own scoring on per-item option distributions (a table with trait, scores, probs, and
    optionally valid - the MCS item output): per trait, the percentage of items whose most probable
    option is a high option (TRAIT reports this, 0-100), the mean probability mass on high options,
    and the expected score on the paper's 1-5 mapping (1 + 4 * P(high))."""
    rows = []
    use = item_probs[item_probs["valid"].astype(bool)] if "valid" in item_probs.columns else item_probs
    for t in "OCEAN":
        sub = use[use["trait"] == t]
        if sub.empty:
            continue
        chose_high, p_high = [], []
        for _, r in sub.iterrows():
            p = json.loads(r["probs"])
            s = json.loads(r["scores"])
            if len(p) != len(s):
                raise ValueError(f"item {r.get('item_id', '?')}: {len(p)} probabilities for {len(s)} options")
            tot = float(sum(p))
            high = [i for i, v in enumerate(s) if v == max(s)]
            chose_high.append(max(range(len(p)), key=lambda i: p[i]) in high)
            p_high.append(sum(p[i] for i in high) / tot if tot > 0 else float("nan"))
        ph = float(pd.Series(p_high).mean())
        rows.append({"trait": t, "n_items": len(sub), "trait_score_pct": 100.0 * sum(chose_high) / len(sub),
                     "mean_p_high": ph, "expected_likert": 1.0 + 4.0 * ph})
    return pd.DataFrame(rows, columns=["trait", "n_items", "trait_score_pct", "mean_p_high", "expected_likert"])


TRAIT_NATIVE_COLUMNS = ["model", "instrument", "country", "priming", "trait", "n_items", "n_invalid",
                        "trait_score_pct", "mean_p_high", "expected_likert"]


def trait_native_table(files: Sequence[tuple[str, str | Path]]) -> pd.DataFrame:
    """TRAIT's own scores for every (model, MCS item file) of a TRAIT-format instrument: one row per
    model x instrument x country x priming x trait, with the count of invalid items left out."""
    parts = []
    for model, path in files:
        df = pd.read_csv(path, sep="\t", dtype={"item_id": str})
        need = {"country", "priming", "instrument", "trait", "probs", "scores", "valid"} - set(df.columns)
        if need:
            raise InstrumentError(path, f"missing column(s) {sorted(need)}")
        for (inst, country, priming), g in df.groupby(["instrument", "country", "priming"], sort=True):
            valid = g["valid"].astype(str).str.lower().isin(("true", "1"))
            scores = trait_native_scores(g[valid].drop(columns="valid")).set_index("trait")
            # a trait whose items were all invalid keeps its row (n_items 0, scores empty)
            scores = scores.reindex([t for t in "OCEAN" if t in set(g["trait"])]).reset_index()
            scores["n_items"] = scores["n_items"].fillna(0).astype(int)
            invalid = (~valid).groupby(g["trait"]).sum()
            scores.insert(0, "model", model)
            scores.insert(1, "instrument", inst)
            scores.insert(2, "country", country)
            scores.insert(3, "priming", priming)
            scores.insert(6, "n_invalid", [int(invalid.get(t, 0)) for t in scores["trait"]])
            parts.append(scores)
    if not parts:
        return pd.DataFrame(columns=TRAIT_NATIVE_COLUMNS)
    return pd.concat(parts, ignore_index=True)[TRAIT_NATIVE_COLUMNS]


def cp_items(questions: pd.DataFrame, src: str, instrument: str = "cp") -> pd.DataFrame:
    """CulturalPersonas questions (scenario, question, the five graded answers) as items."""
    q = questions.copy()
    if "scenario" not in q.columns and "scenario_text" in q.columns:
        q["scenario"] = q["scenario_text"]
    if "valid" in q.columns:
        q = q[q["valid"].astype(str).str.lower().isin(("true", "1"))]
    q = q.reset_index(drop=True)
    df = _choice_rows(instrument, q, src, lambda r: " ".join(str(r["scenario"]).split()),
                      lambda r: " ".join(str(r["question"]).split()), list(LEVELS), list(LEVEL_SCORES))
    if "question_id" in q.columns:
        df["item_id"] = [str(x) for x in q["question_id"]]
    return df


def load_instrument(kind: str, path: str | Path, name: str, bfi_key: str | None = None) -> pd.DataFrame:
    """The item table of instrument ``name`` from ``path`` in format ``kind``; ``bfi_key`` (config
    personas.bfi_key) is needed for the BFI format only."""
    if kind == "bfi" and bfi_key is None:
        raise InstrumentError(path, "a BFI instrument needs bfi_key (published or file)")
    loaders = {
        "bfi": lambda: load_bfi(path, bfi_key),
        "ipip_csv": lambda: load_ipip_csv(path, name),
        "ipip_json": lambda: load_ipip_json(path, name),
        "likert_tsv": lambda: load_likert_tsv(path, name),
        "big5chat": lambda: load_big5chat(path),
        "trait": lambda: load_trait(path),
    }
    if kind not in loaders:
        raise ValueError(f"unknown instrument format {kind!r} (known: {sorted(loaders)})")
    df = loaders[kind]()
    df["instrument"] = name
    return df


def trait_counts(items: pd.DataFrame) -> dict[str, int]:
    return {t: int((items["trait"] == t).sum()) for t in "OCEAN"}


def read_items(path: str | Path) -> pd.DataFrame:
    """An item table (``item_id`` kept as text)."""
    return read_tsv(path, dtype={"item_id": str})


def limit_items(items: pd.DataFrame, per_trait: int | None) -> pd.DataFrame:
    """The first ``per_trait`` items of each trait (None: all)."""
    if not per_trait:
        return items
    return items.groupby("trait", group_keys=False, sort=False).head(per_trait).reset_index(drop=True)


def instrument_items(kind: str, path: str | Path, name: str, bfi_key: str | None,
                     max_items: int | None) -> tuple[pd.DataFrame, dict[str, int]]:
    """A baseline instrument's item table (at most ``max_items`` per trait) and the items left out
    because they measure no Big Five trait (e.g. TRAIT's Dark Triad), per reason."""
    loaded = load_instrument(kind, path, name, bfi_key)
    excluded = dict(loaded.attrs.get("excluded", {}))
    if excluded:
        log.info("%s: left out %d items outside the Big Five: %s", name, sum(excluded.values()), excluded)
    return limit_items(loaded, max_items), excluded


def cp_instrument(max_items: int | None, questions=None, release=None,
                  release_code: str | None = None) -> tuple[pd.DataFrame, str]:
    """The CulturalPersonas items of a country: its generated ``questions`` table, or the questions of
    ``release`` (a release folder) with ``release_code``; at most ``max_items`` per trait.
    Returns (items, source)."""
    if release is not None:
        from .release import release_questions

        q = release_questions(release, release_code)
        src = f"{release} ({release_code})"
    else:
        q = read_tsv(questions)
        src = str(questions)
    return limit_items(cp_items(q, src), max_items), src
