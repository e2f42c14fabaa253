from cultalign.core.job import Job
from cultalign.pact.human import id_salt, ingest_export

job = Job(snakemake)
p = job.params
salt = id_salt(p.id_salt, p.id_salt_env, p.prolific_export)
responses, filters, synthetic = ingest_export(job.input.export, p.attention_answer, salt, p.younger_below_age)
for table, path in ((responses, job.output.responses), (filters, job.output.filters)):
    job.write_table(table, path, counts={"valid": len(responses), "invalid": 0},
                    extra={"synthetic_human_data": synthetic})
job.log.info("filters %s", filters.to_dict("records"))
