from cultalign.core.job import Job
from cultalign.pact.ingest import cultureatlas_summary, load_cultureatlas

job = Job(snakemake)
df = load_cultureatlas(job.input.data)
summary = cultureatlas_summary(df)
for table, path in ((df, job.output.table), (summary, job.output.summary)):
    job.write_table(table, path, counts={"rows": len(df), "valid": len(df), "invalid": 0},
                    extra={"source": job.input.data})
job.log.info("CultureAtlas: %s", summary.to_dict("records"))
