"""Corpus handling: render text to PDF (demo corpus), extract PDF text, chunk it."""

from __future__ import annotations

import logging
from pathlib import Path

from ..core.inputs import InputError, existing_file

log = logging.getLogger(__name__)


def _latin1(text: str) -> str:
    """fpdf2's core fonts are Latin-1: map the few typographic characters we use, refuse others."""
    table = {"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-", "\u2014": "-", "\u2026": "..."}
    text = "".join(table.get(c, c) for c in text)
    try:
        text.encode("latin-1")
    except UnicodeEncodeError as e:
        raise ValueError(
            f"character {text[e.start]!r} at offset {e.start} cannot be rendered in a core PDF font") from e
    return text


def render_text_pdf(text_file: str | Path, pdf_file: str | Path, title: str | None = None) -> int:
    """Render a plain-text file (paragraphs separated by blank lines, '# ' headings) to a PDF.

    Returns the number of pages.  Deterministic: the creation date is fixed so
    the bytes depend only on the text.
    """
    from fpdf import FPDF

    text = Path(text_file).read_text(encoding="utf-8")
    pdf = FPDF(format="A4")
    pdf.set_creation_date(__import__("datetime").datetime(2000, 1, 1, tzinfo=__import__("datetime").timezone.utc))
    pdf.set_auto_page_break(auto=True, margin=18)
    pdf.add_page()
    if title:
        pdf.set_title(title)
    for block in text.split("\n\n"):
        block = block.strip()
        if not block:
            continue
        if block.startswith("# "):
            pdf.set_font("Helvetica", "B", 14)
            pdf.multi_cell(0, 8, _latin1(block[2:].strip()))
            pdf.ln(2)
        else:
            pdf.set_font("Helvetica", "", 11)
            pdf.multi_cell(0, 6, _latin1(" ".join(block.split())))
            pdf.ln(3)
    Path(pdf_file).parent.mkdir(parents=True, exist_ok=True)
    pdf.output(str(pdf_file))
    return pdf.page_no()


def read_pdf_pages(path: str | Path, *, key: str | None = None):
    """The pages of a PDF as LangChain Documents; a damaged or truncated PDF fails naming the file."""
    from langchain_community.document_loaders import PyPDFLoader

    p = existing_file(path, key)
    try:
        pages = PyPDFLoader(str(p)).load()
    except Exception as e:  # pypdf raises many types (PdfStreamError, PdfReadError, ValueError...)
        raise InputError(p, f"cannot read this PDF ({type(e).__name__}: {e}); the file may be "
                            f"truncated or not a PDF - replace or remove it", key=key) from e
    if not pages:
        raise InputError(p, "the PDF has no pages", key=key)
    return pages


def load_pdf_folder(folder: str | Path):
    """All pages of all PDFs in ``folder`` (sorted by name) as LangChain Documents."""
    pdfs = sorted(Path(folder).glob("*.pdf"))
    if not pdfs:
        raise FileNotFoundError(f"no PDF files in {folder}")
    docs = []
    for p in pdfs:
        pages = read_pdf_pages(p)
        empty = sum(1 for d in pages if not d.page_content.strip())
        if empty:
            log.warning("%s: %d of %d pages have no extractable text", p, empty, len(pages))
        for d in pages:
            d.metadata["source"] = p.name
        docs.extend(pages)
    return docs


def chunk_documents(docs, chunk_size: int = 800, chunk_overlap: int = 100):
    """Recursive character chunks; each keeps source/page metadata and gets a stable chunk id."""
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    splitter = RecursiveCharacterTextSplitter(chunk_size=chunk_size, chunk_overlap=chunk_overlap)
    chunks = splitter.split_documents(docs)
    for i, c in enumerate(chunks):
        c.metadata["chunk_id"] = i
    return chunks


def load_pdf_files(paths):
    """Pages of the given PDF files as LangChain Documents (source = file name); a damaged or
    truncated PDF fails naming its path (and the config key of its folder)."""
    if not paths:
        raise FileNotFoundError("no PDF files given")
    docs = []
    for p in sorted(str(x) for x in paths):
        pages = read_pdf_pages(p)
        for d in pages:
            d.metadata["source"] = Path(p).name
        docs.extend(pages)
    return docs
