"""PDF corpus -> chunks -> sentence embeddings -> FAISS index (LangChain), and retrieval.

Used by the CulturalPersonas study (one index per country) but generic.
"""

from .corpus import chunk_documents, load_pdf_folder, render_text_pdf
from .index import build_index, embeddings_for, load_index, resolve_embedding_path, retrieve, text_encoder

__all__ = ["render_text_pdf", "load_pdf_folder", "chunk_documents", "build_index", "load_index", "retrieve",
           "embeddings_for", "resolve_embedding_path", "text_encoder"]
