"""Reading input files (user data, releases, annotations, corpora, audio): one layer for every loader.

Whatever goes wrong while reading or checking an input file becomes an
:class:`InputError` whose message names the file, the line as an editor shows
it (1-based, header included), the field, and the config key that points to
the file where one does::

    data/normad.csv, line 5, field 'Gold Label': 'maybe' is not one of ['yes', 'no', 'neutral']
      (file set by config key 'pact.sources.normad.path')

The config key comes from the caller (``key=``) or, inside a rule job, from
the rule's ``input_keys`` param (rules/common.smk gives every rule the config
keys of its input files; :class:`cultalign.core.job.Job` registers them here).

Readers: :func:`read_text`, :func:`read_table` (CSV/TSV with required columns
and numeric checks), :func:`read_json`, :func:`read_jsonl`, :func:`read_records`;
:func:`row_error` for a check of a loader's own (the line of a table row is
kept in ``df.attrs["lines"]``).  Files read through a heavy library raise the
same InputError from beside that library, so that a rule's environment needs
the library only where the rule reads such files: PDFs in
``cultalign.retrieval.corpus.read_pdf_pages``, audio in
``cultalign.audio.transcribe.probe_audio`` / ``decode_audio``.
"""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

_KEYS: dict[str, str] = {}


def register_keys(mapping: Mapping[str, str]) -> None:
    """Remember the config key of each input path (a file, or a folder whose files it covers)."""
    _KEYS.update({os.path.normpath(str(p)): str(k) for p, k in (mapping or {}).items()})


def key_of(path: str | Path) -> str | None:
    """The config key registered for ``path`` or for the nearest folder above it."""
    p = os.path.normpath(str(path))
    while True:
        if p in _KEYS:
            return _KEYS[p]
        parent = os.path.dirname(p)
        if parent == p or not parent:
            return None
        p = parent


INPUT_MARKS = ("x-input-key", "x-input-file")


def input_key_map(schema: dict, config: dict) -> dict[str, str]:
    """Every input file or folder the config sets (schema marks ``x-input-file``, and ``x-input-key``
    for files a rule may make first, e.g. the demo audio, or a folder of the user's files) -> its
    config key.  ``rules/common.smk`` registers it while the Snakefile is parsed and gives every
    script rule the keys of its inputs (:func:`keys_of_files`)."""
    from ..config import iter_marked

    return {os.path.normpath(v): k for mark in INPUT_MARKS for k, v in iter_marked(schema, config, mark)}


def keys_of_files(files: Iterable[str | Path], key_map: Mapping[str, str]) -> dict[str, str]:
    """The config key of each of ``files`` that a key sets, itself or as a folder above it."""
    out = {}
    for f in files:
        p = os.path.normpath(str(f))
        while p and p not in key_map and os.path.dirname(p) != p:
            p = os.path.dirname(p)
        if p in key_map:
            out[str(f)] = key_map[p]
    return out


class InputError(ValueError):
    """An input file cannot be read or does not match what its loader expects."""

    def __init__(self, path: str | Path, problem: str, *, row: int | None = None, field: str | None = None,
                 key: str | None = None):
        self.path = str(path)
        self.row = row  # 1-based line of the file as an editor shows it
        self.field = field
        self.key = key or key_of(path)
        self.problem = problem
        where = self.path
        if row is not None:
            where += f", line {row}"
        if field is not None:
            where += f", field '{field}'"
        msg = f"{where}: {problem}"
        if self.key:
            msg += f" (file set by config key '{self.key}')"
        super().__init__(msg)

    def __reduce__(self):  # picklable (worker processes) with its keyword fields
        return (_rebuild, (type(self), self.path, self.problem, self.row, self.field, self.key))


def _rebuild(cls, path, problem, row, field, key):
    err = InputError.__new__(cls)
    InputError.__init__(err, path, problem, row=row, field=field, key=key)
    return err


def existing_file(path: str | Path, key: str | None) -> Path:
    p = Path(path)
    if not p.exists():
        raise InputError(p, "file does not exist", key=key)
    if p.is_dir():
        raise InputError(p, "is a folder, expected a file", key=key)
    return p


def read_text(path: str | Path, *, key: str | None = None, encoding: str = "utf-8") -> str:
    """The text of a file; bytes that are not ``encoding`` fail naming their line and column."""
    data = existing_file(path, key).read_bytes()
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        col = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        raise InputError(path, f"not {encoding} text: byte 0x{data[e.start]:02x} at column {col} "
                               f"(save the file as {encoding.upper()})", row=line, key=key) from None
    return text.removeprefix("\ufeff")  # a byte-order mark some spreadsheet programs write


# -- tables ----------------------------------------------------------------------------------------
def _records(path, text: str, sep: str, comment: str | None, key) -> list[int]:
    """Line of the header and of each record (where it starts; a quoted cell may span lines), and
    the check that every record has as many fields as the header."""
    starts, width, end = [], None, 0
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=sep)
    try:
        for row in reader:
            start, end = end + 1, reader.line_num
            if not row or (len(row) == 1 and not row[0].strip()):
                continue  # a blank line
            if comment and row[0].lstrip().startswith(comment):
                continue
            if width is None:
                width = len(row)
            elif len(row) != width:
                what = "a stray separator or an unclosed quote?" if len(row) > width else "a missing field?"
                raise InputError(path, f"{len(row)} fields where the header has {width} ({what})",
                                 row=start, key=key)
            starts.append(start)
    except csv.Error as e:
        raise InputError(path, f"cannot parse: {e}", row=reader.line_num, key=key) from None
    return starts


def sep_of(path: str | Path) -> str:
    return "\t" if Path(path).suffix.lower() in (".tsv", ".tab") else ","


def read_table(path: str | Path, *, sep: str | None = None, required: Sequence[str] = (),
               numeric: Iterable[str] = (), integer: Iterable[str] = (), nonempty: Iterable[str] = (),
               key: str | None = None, comment: str | None = None, **read_csv: Any):
    """A CSV/TSV file as a DataFrame (``sep`` from the suffix unless given: .tsv/.tab tab, else comma).

    Checked, each failure an :class:`InputError` naming line and field: UTF-8 text, a header, the same
    number of fields on every line, the ``required`` columns, numbers in ``numeric`` (and whole
    numbers in ``integer``) columns where a cell is not empty, no empty cell in ``nonempty``.
    ``read_csv`` keywords (``dtype``, ``keep_default_na``...) shape the returned frame as in pandas
    (none: pandas' own type inference, as ``pd.read_csv(path)``).
    ``df.attrs["lines"]`` holds the line of each row, ``df.attrs["source"]`` the path.
    """
    import pandas as pd

    text = read_text(path, key=key)
    sep = sep or sep_of(path)
    if not text.strip():
        raise InputError(path, "the file is empty (expected a header row)", row=1, key=key)

    rec = _records(path, text, sep, comment, key)

    def parse(**kw):
        try:
            return pd.read_csv(io.StringIO(text), sep=sep, comment=comment, **kw)
        except pd.errors.EmptyDataError:
            raise InputError(path, "no header row (only blank or comment lines)", row=1, key=key) from None
        except pd.errors.ParserError as e:
            raise InputError(path, f"cannot parse as {'TSV' if sep == chr(9) else 'CSV'}: {e}", key=key) from None

    raw = parse(dtype=str, keep_default_na=False)
    raw.columns = [str(c) for c in raw.columns]
    lines = rec[1:] if len(rec) == len(raw) + 1 else [i + 2 for i in range(len(raw))]
    missing = [c for c in required if c not in raw.columns]
    if missing:
        raise InputError(path, f"missing column(s) {missing}; the header has {list(raw.columns)}",
                         row=rec[0] if rec else 1, field=missing[0], key=key)
    for col in [c for c in nonempty if c in raw.columns]:
        bad = raw[col].str.strip() == ""
        if bad.any():
            i = int(bad.to_numpy().nonzero()[0][0])
            raise InputError(path, "empty value", row=lines[i], field=col, key=key)
    ints = set(integer)
    for col in [*numeric, *ints]:
        if col not in raw.columns:
            continue
        vals = raw[col].str.strip()
        num = pd.to_numeric(vals.where(vals != ""), errors="coerce")
        bad = (vals != "") & (num.isna() | ((num % 1 != 0) if col in ints else False))
        if bad.any():
            i = int(bad.to_numpy().nonzero()[0][0])
            kind = "a whole number" if col in ints else "a number"
            raise InputError(path, f"expected {kind}, got {raw[col].iloc[i]!r}", row=lines[i], field=col, key=key)
    if read_csv == {"dtype": str, "keep_default_na": False}:
        df = raw  # already parsed that way
    else:
        try:
            df = parse(**read_csv)
        except ValueError as e:  # a dtype the caller asked for that a cell does not fit
            raise InputError(path, f"a value does not fit its column's type: {e}", key=key) from None
        df.columns = [str(c) for c in df.columns]
    df.attrs["lines"] = lines
    df.attrs["source"] = str(path)
    return df


def row_error(df, i: int, field: str | None, problem: str, *, path: str | Path | None = None,
              key: str | None = None) -> InputError:
    """An InputError for row position ``i`` of a frame from :func:`read_table` (its line and file)."""
    lines = df.attrs.get("lines") or []
    line = lines[i] if 0 <= i < len(lines) else None
    src = path or df.attrs.get("source") or "<table>"
    if line is None:  # a format without one record per line (a JSON list): the record's position
        problem = f"record {i + 1}: {problem}"
    return InputError(src, problem, row=line, field=field, key=key)


# -- JSON ------------------------------------------------------------------------------------------
def _json_error(path, text: str, e: json.JSONDecodeError, key, line_offset: int = 0) -> InputError:
    truncated = e.pos >= len(text.rstrip()) - 1
    hint = " (the file ends early: truncated or partly written?)" if truncated else ""
    return InputError(path, f"invalid JSON at column {e.colno}: {e.msg}{hint}", row=e.lineno + line_offset,
                      key=key)


def read_json(path: str | Path, *, key: str | None = None, expect: type | None = None) -> Any:
    """A JSON file; ``expect`` (list, dict) checks the top-level type."""
    text = read_text(path, key=key)
    if not text.strip():
        raise InputError(path, "the file is empty (expected JSON)", row=1, key=key)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise _json_error(path, text, e, key) from None
    if expect is not None and not isinstance(data, expect):
        raise InputError(path, f"expected a JSON {expect.__name__} at the top level, got {type(data).__name__}",
                         row=1, key=key)
    return data


def read_jsonl(path: str | Path, *, key: str | None = None) -> list[tuple[int, Any]]:
    """(line, record) for every non-blank line of a JSON Lines file."""
    out = []
    for i, line in enumerate(read_text(path, key=key).splitlines(), start=1):
        if line.strip():
            try:
                out.append((i, json.loads(line)))
            except json.JSONDecodeError as e:
                raise _json_error(path, line, e, key, line_offset=i - 1) from None
    return out


def read_records(path: str | Path, *, key: str | None = None):
    """A list of records from .json (a list of objects), .jsonl or a CSV/TSV table, as a DataFrame
    (all text) with ``attrs["lines"]``: the line of each row where the format has one per row."""
    import pandas as pd

    suffix = Path(path).suffix.lower()
    if suffix == ".json":
        data = read_json(path, key=key, expect=list)
        lines = None
    elif suffix == ".jsonl":
        pairs = read_jsonl(path, key=key)
        lines = [i for i, _ in pairs]
        data = [r for _, r in pairs]
    else:
        return read_table(path, key=key, dtype=str, keep_default_na=False)
    for n, r in enumerate(data):
        if not isinstance(r, dict):
            raise InputError(path, f"record {n + 1} is a {type(r).__name__}, expected an object",
                             row=lines[n] if lines else None, key=key)
    df = pd.DataFrame(data)
    df.attrs["lines"] = lines or []
    df.attrs["source"] = str(path)
    return df
