from cultalign.core.job import Job
from cultalign.personas.real_data import repro_ks_denominator

job = Job(snakemake)
table = repro_ks_denominator(job.input.folder)
job.write_table(table, job.output[0], extra={"source": job.input.folder})
job.log.info("CulturalPersonas reproduction: %s", table.to_dict("records"))
