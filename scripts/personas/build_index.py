from cultalign.core.job import Job
from cultalign.personas.corpus import index_corpus

job = Job(snakemake)
p = job.params
chunks, counts = index_corpus(list(job.input), p.chunk_size, p.chunk_overlap, p.embedding_model, job.output.index)
job.write_table(chunks, job.output.chunks, counts=counts, extra={"embedding_model": p.embedding_model})
job.sidecar(job.output.index, counts=counts, extra={"embedding_model": p.embedding_model})  # read by the generators
job.log.info("%d pages -> %d chunks indexed", counts["pages"], counts["chunks"])
