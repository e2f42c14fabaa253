from cultalign.core.job import Job
from cultalign.pact.figures import figure12_from

job = Job(snakemake)
figure12_from(job.input.effects, job.output.figure)
job.sidecar(job.output.figure)
job.log.info("figure 12 written: %s", job.output.figure)
