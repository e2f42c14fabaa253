from cultalign.core.job import Job
from cultalign.pact.annotation import agreement_table, read_annotations

job = Job(snakemake)
ann = read_annotations(job.input.table)
job.write_table(agreement_table(ann, job.input.table), job.output.table, counts={"valid": len(ann), "invalid": 0})
