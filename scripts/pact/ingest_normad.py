from cultalign.core.job import Job
from cultalign.pact.ingest import load_normad, normad_summary

job = Job(snakemake)
df = load_normad(job.input.data)
overall, per_country = normad_summary(df)
for table, path in ((df, job.output.table), (overall, job.output.summary), (per_country, job.output.per_country)):
    job.write_table(table, path, counts={"rows": len(df), "valid": len(df), "invalid": 0},
                    extra={"source": job.input.data})
job.log.info("NormAd: %s", overall.to_dict("records"))
