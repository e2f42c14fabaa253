from cultalign.claims import evaluate, load_claims
from cultalign.core.job import Job

job = Job(snakemake)
table = evaluate(load_claims(job.input.claims), job.params.studies, job.params.scale)
table.to_csv(job.output[0], index=False)
job.write_report_page(table, job.output[0])
job.log.info("claims: %s", table["status"].value_counts().to_dict())
