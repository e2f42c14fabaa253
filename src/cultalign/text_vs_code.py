"""Paper text and the authors' code: where a paper's text and its authors' released code disagree.

Each study lists its disagreements in ``config/text_vs_code/<study>.yaml``::

    authors_code: {repo: owner/name, commit: <40 hex>}   # the released code the entries cite
    entries:
      - id: pact.figure6b_agreement        # <study>.<name>, unique over all files
        place: "Figure 6B; abstract"        # where the paper states or uses it
        topic: "Agreement with the majority answer"
        text: "what the paper's text says (and how it reads)"
        code: "what the authors' code computes"
        code_ref: scripts/section5_metrics.py   # file(s) of authors_code, a string or a list
        default: code                        # what the paper-scale default computes: code | text | own
        key: pact.human.agreement            # the config key that selects the reading (or null)
        settings: {code: pooled, text: cells}   # the key's value for each reading
        values:                              # optional: each reading computed by this workflow
          code: {result: results/..., column: ..., where: {...}}
          text: {result: results/..., column: ..., where: {...}}
        claims: [pact.some_claim]            # optional: claims whose meaning the choice changes
        why: "..."                           # required unless default is code

The rule ``text_vs_code`` evaluates the entries of the configured studies into
``results/text_vs_code.tsv`` (the report page "Paper text and the authors' code"); the claims
scorecard reads that table.  A value whose table was computed from a synthetic input carries the
input's key in ``synthetic_inputs``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

if TYPE_CHECKING:
    import pandas as pd

READINGS = ("code", "text")
DEFAULTS = ("code", "text", "own")
REQUIRED = ("id", "place", "topic", "text", "code", "code_ref", "default")
OPTIONAL = ("key", "settings", "values", "claims", "why")
COLUMNS = ["id", "study", "place", "topic", "text", "code", "code_ref", "default", "key", "setting_code",
           "setting_text", "value_code", "value_text", "computed", "claims", "why", "synthetic_inputs"]


class TextCodeError(ValueError):
    """A malformed disagreement file: names the file, the entry and the field."""


def study_file(study: str, base: str | Path = ".") -> Path:
    return Path(base) / "config" / "text_vs_code" / f"{study}.yaml"


def load(path: str | Path) -> tuple[dict, list[dict[str, Any]]]:
    """``(authors_code, entries)`` of one study's file, validated."""
    path = Path(path)
    study = path.stem
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as e:
        raise TextCodeError(f"{path}: not valid YAML ({e})") from e
    if not isinstance(doc, dict) or set(doc) - {"authors_code", "entries"}:
        raise TextCodeError(f"{path}: the file holds authors_code and entries only")
    ac = doc.get("authors_code") or {}
    if not (isinstance(ac, dict) and ac.get("repo") and re.fullmatch(r"[0-9a-f]{40}", str(ac.get("commit", "")))):
        raise TextCodeError(f"{path}: authors_code needs repo (owner/name) and commit (40 hex digits)")
    entries = doc.get("entries") or []
    if not isinstance(entries, list):
        raise TextCodeError(f"{path}: entries must be a list")
    seen: set[str] = set()
    for n, e in enumerate(entries, 1):
        where = f"{path}: entry {n}" + (f" ({e.get('id')})" if isinstance(e, dict) and e.get("id") else "")
        if not isinstance(e, dict):
            raise TextCodeError(f"{where}: an entry is a mapping")
        missing = [k for k in REQUIRED if not e.get(k)]
        if missing:
            raise TextCodeError(f"{where}: missing field {', '.join(missing)}")
        unknown = sorted(set(e) - set(REQUIRED) - set(OPTIONAL))
        if unknown:
            raise TextCodeError(f"{where}: unknown field {', '.join(unknown)}")
        if not str(e["id"]).startswith(f"{study}."):
            raise TextCodeError(f"{where}: field id must start with '{study}.'")
        if e["id"] in seen:
            raise TextCodeError(f"{where}: field id repeats '{e['id']}'")
        seen.add(e["id"])
        if e["default"] not in DEFAULTS:
            raise TextCodeError(f"{where}: field default must be one of {', '.join(DEFAULTS)}")
        if e["default"] != "code" and not e.get("why"):
            raise TextCodeError(f"{where}: field why is required when the default is not the authors' code")
        settings = e.get("settings") or {}
        if set(settings) - set(READINGS):
            raise TextCodeError(f"{where}: field settings names readings {', '.join(READINGS)} only")
        if settings and not e.get("key"):
            raise TextCodeError(f"{where}: field settings needs key (the config key they set)")
        values = e.get("values") or {}
        if set(values) - set(READINGS):
            raise TextCodeError(f"{where}: field values names readings {', '.join(READINGS)} only")
        for reading, v in values.items():
            if not (isinstance(v, dict) and v.get("result") and v.get("column")) or set(v) - {"result", "column",
                                                                                                "where"}:
                raise TextCodeError(f"{where}: field values.{reading} needs result and column (and where)")
        if not isinstance(e.get("claims") or [], list):
            raise TextCodeError(f"{where}: field claims must be a list of claim ids")
    return ac, entries


def load_studies(studies: list[str], base: str | Path = ".") -> dict[str, tuple[dict, list[dict]]]:
    """The files of ``studies`` that exist: ``{study: (authors_code, entries)}``."""
    return {s: load(study_file(s, base)) for s in studies if study_file(s, base).exists()}


def result_files(loaded: dict[str, tuple[dict, list[dict]]]) -> list[str]:
    """The result tables the entries' values read."""
    return sorted({v["result"] for _, entries in loaded.values() for e in entries
                   for v in (e.get("values") or {}).values()})


def _value(spec: dict | None, base: Path, cache: dict, tables=None) -> tuple[Any, str, list[str]]:
    """(value or None, why not, synthetic keys) of one reading."""
    import pandas as pd

    from .claims import select
    from .core.provenance import synthetic_inputs_of_files

    if not spec:
        return None, "not computed", []
    path = base / spec["result"]
    if not path.exists() or (tables is not None and spec["result"] not in tables):
        return None, f"{spec['result']} not made by this run", []
    if path not in cache:
        cache[path] = pd.read_csv(path, sep="\t", keep_default_na=False)
    df = cache[path]
    if spec["column"] not in df.columns:
        raise TextCodeError(f"{spec['result']}: no column {spec['column']!r} (columns: {', '.join(df.columns)})")
    rows = select(df, spec.get("where"))
    if len(rows) != 1:
        return None, f"{len(rows)} rows of {spec['result']} match {spec.get('where') or {}}", []
    return rows.iloc[0][spec["column"]], "", synthetic_inputs_of_files([path])


def evaluate(loaded: dict[str, tuple[dict, list[dict]]], base: str | Path = ".", tables=None) -> "pd.DataFrame":
    """One row per disagreement: both readings, the default, and each reading's value where computed;
    ``tables``: the result files the calling job has as inputs (a value read from another is "not made
    by this run", such as a model run's table in the real-data run); None: any file on disk."""
    import pandas as pd

    base, cache, rows = Path(base), {}, []
    for study, (ac, entries) in loaded.items():
        for e in entries:
            refs = e["code_ref"] if isinstance(e["code_ref"], list) else [e["code_ref"]]
            vals, why_not, synthetic = {}, {}, set()
            for r in READINGS:
                vals[r], why_not[r], syn = _value((e.get("values") or {}).get(r), base, cache, tables)
                synthetic |= set(syn)
            have = [r for r in READINGS if vals[r] is not None]
            if len(have) == 2:
                computed = "both"
            elif have:
                other = "text" if have[0] == "code" else "code"
                computed = f"{have[0]} reading only ({other}: {why_not[other]})"
            else:
                computed = f"neither ({why_not['code']})"
            settings = e.get("settings") or {}
            rows.append({
                "id": e["id"], "study": study, "place": e["place"], "topic": e["topic"],
                "text": " ".join(str(e["text"]).split()), "code": " ".join(str(e["code"]).split()),
                "code_ref": "; ".join(f"{ac['repo']}@{ac['commit'][:7]}:{r}" for r in refs),
                "default": e["default"], "key": e.get("key") or "",
                "setting_code": _fmt(settings.get("code")), "setting_text": _fmt(settings.get("text")),
                "value_code": _fmt(vals["code"]), "value_text": _fmt(vals["text"]), "computed": computed,
                "claims": "; ".join(e.get("claims") or []), "why": " ".join(str(e.get("why") or "").split()),
                "synthetic_inputs": "; ".join(sorted(synthetic)),
            })
    return pd.DataFrame(rows, columns=COLUMNS)


def _fmt(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.6g}"
    return str(v)
