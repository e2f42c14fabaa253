from cultalign.core.job import Job
from cultalign.real_data import personas_release_counts

job = Job(snakemake)
table = personas_release_counts(job.input.release, job.params.countries)
job.write_table(table, job.output[0], extra={"source": job.input.release})
job.log.info("CulturalPersonas release: %d counts", len(table))
