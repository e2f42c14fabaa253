from cultalign.core.job import Job
from cultalign.personas.corpus import index_corpus

job = Job(snakemake)
p = job.params
api = None
if p.embedder:  # a hosted embedding model through the model layer's request cache
    from cultalign.models.embeddings import open_embeddings

    api = open_embeddings(p.embedder, writer=job.writer)
used = p.embedder["name"] if p.embedder else p.embedding_model
chunks, counts = index_corpus(list(job.input), p.chunk_size, p.chunk_overlap, p.embedding_model, job.output.index,
                              api=api)
if api is not None:
    counts = {**counts, **{f"embedding_{k}": v for k, v in api.stats.items()}}
job.write_table(chunks, job.output.chunks, counts=counts, extra={"embedding_model": used})
job.sidecar(job.output.index, counts=counts, extra={"embedding_model": used})  # read by the generators
job.log.info("%d pages -> %d chunks indexed", counts["pages"], counts["chunks"])
