from cultalign.core.job import Job
from cultalign.personas.release import export_release

job = Job(snakemake)
counts = export_release(list(job.input.norms), list(job.input.scenarios), list(job.input.questions),
                        job.params.names, job.params.codes, job.output[0])
job.sidecar(job.output[0], counts=counts)  # read by the audit (carries the synthetic mark)
job.log.info("exported: %s", counts)
