from cultalign.core.job import Job
from cultalign.core.tables import read_tsv
from cultalign.monopolet.response_stats import response_tables

job = Job(snakemake)
per_model, per_answer, counts = response_tables([read_tsv(p, empty_as_na=True) for p in job.input], job.params.words)
job.write_table(per_model, job.output.per_model, counts=counts)
job.write_table(per_answer, job.output.per_answer, counts=counts)
job.log.info("\n%s", per_model.to_string())
