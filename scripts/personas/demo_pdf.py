from cultalign.core.job import Job
from cultalign.personas.corpus import demo_pdf

job = Job(snakemake)
pages = demo_pdf(job.input[0], job.output[0], job.wildcards.country)
job.sidecar(job.output[0], counts={"pages": pages}, extra={"synthetic": True, "source": job.input[0]})
job.log.info("rendered %s: %d page(s)", job.output[0], pages)
