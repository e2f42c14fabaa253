from cultalign.core.job import Job
from cultalign.models.prepare import convert_gguf_package

job = Job(snakemake)
convert_gguf_package(job.params.package, job.output[0])
