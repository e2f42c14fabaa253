from cultalign.core.job import Job
from cultalign.personas.release import release_root
from cultalign.personas.real_data import personas_release_counts

job = Job(snakemake)
release = release_root(job.input.release)
table = personas_release_counts(release, job.params.countries)
job.write_table(table, job.output[0], extra={"source": str(release)})
job.log.info("CulturalPersonas release: %d counts", len(table))
