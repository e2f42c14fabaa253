"""The retrieval corpus of a country: PDFs -> chunks -> FAISS index, and the demo corpus."""

from __future__ import annotations

import pandas as pd

from cultalign.retrieval import build_index, chunk_documents, render_text_pdf
from cultalign.retrieval.corpus import load_pdf_files


def demo_pdf(text_file, pdf_file, country: str) -> int:
    """Render the demo text of ``country`` to a PDF titled as synthetic; returns its pages."""
    return render_text_pdf(text_file, pdf_file, title=f"cultalign demo corpus (synthetic): {country}")


def index_corpus(pdfs: list[str], chunk_size: int, chunk_overlap: int, embedding_model: str,
                 index_dir, api=None) -> tuple[pd.DataFrame, dict[str, int]]:
    """Chunk the PDFs, embed the chunks with ``embedding_model`` (or the hosted embedding model
    ``api``, see ``retrieval.embeddings_for``) and persist the FAISS index at ``index_dir``.
    Returns (one row per chunk: id, source, page, characters, text; counts)."""
    docs = load_pdf_files(list(pdfs))
    chunks = chunk_documents(docs, chunk_size, chunk_overlap)
    build_index(chunks, embedding_model, index_dir, api)
    table = pd.DataFrame([{"chunk_id": c.metadata["chunk_id"], "source": c.metadata.get("source"),
                           "page": c.metadata.get("page"), "chars": len(c.page_content), "text": c.page_content}
                          for c in chunks])
    return table, {"pdfs": len(pdfs), "pages": len(docs), "chunks": len(chunks)}
