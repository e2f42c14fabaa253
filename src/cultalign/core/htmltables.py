"""Result tables as HTML pages, so the Snakemake report shows them in the page.

The report embeds an ``.html`` result in a frame but offers a ``.tsv``/``.csv``
only as a download.  Every table that goes into the report is therefore also
written as ``<table>.html`` beside it (same folder, same stem), by
:func:`write_html_table`: the rows as an HTML table (numbers right-aligned and
rounded for reading, the full-precision file linked for download), with a
visible mark when the table was computed from synthetic inputs.

``Job.write_table`` writes the HTML page itself whenever the rule declares the
``.html`` sibling of the table as an output (``rules/common.smk``:
``paper_report``), so a rule script needs no extra call.
"""

from __future__ import annotations

import base64
import html
import math
import numbers
from pathlib import Path
from typing import Sequence

import pandas as pd

MAX_ROWS = 2000  # rows shown in the page; the linked file has them all
MAX_DOWNLOAD_BYTES = 2_000_000  # larger files are not embedded as a download link

STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; font-size: 13px;
       margin: 12px; color: #1f2328; }
h1 { font-size: 15px; margin: 0 0 6px 0; }
p.meta { margin: 2px 0 8px 0; color: #57606a; }
p.note { margin: 2px 0 6px 0; max-width: 70em; }
p.synthetic { background: #fff4d6; border: 1px solid #d4a72c; padding: 6px 8px; font-weight: 600; }
table { border-collapse: collapse; }
th, td { border: 1px solid #d0d7de; padding: 3px 7px; vertical-align: top; }
th { background: #f6f8fa; position: sticky; top: 0; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.na { color: #8c959f; text-align: center; }
tr:nth-child(even) td { background: #fbfcfd; }
td.text { max-width: 60em; }
"""


def html_path_of(table: str | Path) -> Path:
    """The HTML page of a table: same folder and stem, suffix ``.html``."""
    return Path(table).with_suffix(".html")


def format_cell(value) -> tuple[str, str]:
    """(text, css class) of one cell: integers as they are, other numbers with four significant
    digits (no exponent for ordinary magnitudes), missing values as an en dash."""
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        return "\u2013", "na"
    if isinstance(value, bool):
        return str(value), "text"
    if isinstance(value, numbers.Integral):
        return f"{int(value):,}" if abs(int(value)) >= 10000 else str(int(value)), "num"
    if isinstance(value, numbers.Real):
        v = float(value)
        if math.isinf(v):
            return ("\u221e" if v > 0 else "-\u221e"), "num"
        if v == int(v) and abs(v) < 1e15:
            return str(int(v)), "num"
        if v != 0 and (abs(v) < 1e-3 or abs(v) >= 1e6):
            return f"{v:.3e}", "num"
        return f"{v:.4g}" if abs(v) < 1 else f"{v:.{max(0, 4 - len(str(int(abs(v)))))}f}", "num"
    return str(value), "text"


def html_table(df: pd.DataFrame, *, title: str, synthetic_inputs: Sequence[str] = (),
               source: str | Path | None = None, max_rows: int = MAX_ROWS, notes: Sequence[str] = ()) -> str:
    """A self-contained HTML page with ``df`` as a table (first ``max_rows`` rows), ``notes`` (paragraphs
    of text) above it."""
    esc = html.escape
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             f"<title>{esc(title)}</title><style>{STYLE}</style></head><body>", f"<h1>{esc(title)}</h1>"]
    if synthetic_inputs:
        parts.append('<p class="synthetic">SYNTHETIC inputs (demo data, not a result): '
                     f"{esc(', '.join(synthetic_inputs))}</p>")
    shown = df.head(max_rows)
    meta = f"{len(df):,} rows \u00d7 {df.shape[1]} columns"
    if len(df) > len(shown):
        meta += f"; the first {len(shown):,} rows are shown"
    if source is not None:
        meta += f"; full precision in {esc(Path(source).name)}"
        link = _download_link(Path(source))
        if link:
            meta += f" ({link})"
    parts.append(f'<p class="meta">{meta}</p>')
    parts += [f'<p class="note">{esc(n)}</p>' for n in notes]
    parts.append("<table><thead><tr>" + "".join(f"<th>{esc(str(c))}</th>" for c in df.columns)
                 + "</tr></thead><tbody>")
    for row in shown.itertuples(index=False, name=None):
        cells = []
        for v in row:
            text, cls = format_cell(v)
            cells.append(f'<td class="{cls}">{esc(text)}</td>')
        parts.append("<tr>" + "".join(cells) + "</tr>")
    if df.empty:
        parts.append(f'<tr><td class="na" colspan="{max(df.shape[1], 1)}">no rows</td></tr>')
    parts.append("</tbody></table></body></html>")
    return "\n".join(parts)


def _download_link(path: Path) -> str:
    if not path.is_file() or path.stat().st_size > MAX_DOWNLOAD_BYTES:
        return ""
    mime = "text/csv" if path.suffix == ".csv" else "text/tab-separated-values"
    data = base64.b64encode(path.read_bytes()).decode()
    return f'<a download="{html.escape(path.name)}" href="data:{mime};base64,{data}">download</a>'


def write_html_table(df: pd.DataFrame, out: str | Path, *, source: str | Path | None = None,
                     synthetic_inputs: Sequence[str] = (), title: str | None = None,
                     notes: Sequence[str] = ()) -> Path:
    """Write ``df`` as the HTML page ``out`` (title: the source file's name)."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    name = title or (Path(source).name if source is not None else out.stem)
    out.write_text(html_table(df, title=name, synthetic_inputs=synthetic_inputs, source=source, notes=notes))
    return out
