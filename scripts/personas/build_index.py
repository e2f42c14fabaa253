import pandas as pd

from cultalign.provenance import write_sidecar
from cultalign.retrieval import build_index, chunk_documents
from cultalign.retrieval.corpus import load_pdf_files
from cultalign.smk import setup_logging

log = setup_logging(snakemake)
cfg = snakemake.params.corpus
docs = load_pdf_files(list(snakemake.input))
chunks = chunk_documents(docs, cfg["chunk_size"], cfg["chunk_overlap"])
build_index(chunks, cfg["embedding_model"], snakemake.output.index)
tab = pd.DataFrame([{"chunk_id": c.metadata["chunk_id"], "source": c.metadata.get("source"),
                     "page": c.metadata.get("page"), "chars": len(c.page_content), "text": c.page_content}
                    for c in chunks])
tab.to_csv(snakemake.output.chunks, sep="\t", index=False)
write_sidecar(snakemake.output.chunks, config=snakemake.config,
              counts={"pdfs": len(snakemake.input), "pages": len(docs), "chunks": len(chunks)},
              extra={"embedding_model": cfg["embedding_model"]})
log.info("%d pages -> %d chunks indexed", len(docs), len(chunks))
