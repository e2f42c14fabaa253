from cultalign.core.job import Job
from cultalign.personas.release_summary import release_summary

job = Job(snakemake)
traits, cells, totals, counts = release_summary(job.input.mcs, job.input.oeg)
for table, path in ((traits, job.output.traits), (cells, job.output.cells), (totals, job.output.totals)):
    job.write_table(table, path, counts=counts, extra={"subsample": job.params.subsample})
job.log.info("run totals:\n%s", totals.to_string())
