from cultalign.core.job import Job
from cultalign.personas.audit import audit_generated

job = Job(snakemake)
p = job.params
encoder = {"model": p.embedding_model, "batch_size": p.embedding_batch_size, "cpu_linear": p.cpu_linear}
findings, summary = audit_generated(job.input.release, p.countries, p.names, p.codes, p.n_norms, p.n_scenarios,
                                    p.near_duplicate_jaccard, encoder)
for path, table in ((job.output.findings, findings), (job.output.summary, summary)):
    job.write_table(table, path, counts={"findings": len(findings)}, extra={"release": str(job.input.release)})
job.log.info("audit of %s: %d findings\n%s", job.input.release, len(findings), summary.to_string())
