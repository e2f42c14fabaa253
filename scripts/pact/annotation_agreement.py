from cultalign.core.job import Job
from cultalign.core.tables import read_tsv
from cultalign.pact.annotation import agreement_table

job = Job(snakemake)
ann = read_tsv(job.input.table, empty_as_na=True)
job.write_table(agreement_table(ann, job.input.table), job.output.table, counts={"valid": len(ann), "invalid": 0})
