from cultalign.core.job import Job
from cultalign.pact.real_data import normad_label_counts

job = Job(snakemake)
table = normad_label_counts(job.input.table)
job.write_table(table, job.output[0], extra={"source": job.input.table})
job.log.info("NormAd-ETI label table: %s", table.to_dict("records"))
