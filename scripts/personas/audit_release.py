from cultalign.core.job import Job
from cultalign.personas.audit import audit_published
from cultalign.personas.release import release_root

job = Job(snakemake)
release = release_root(job.input.release)
p = job.params
encoder = {"model": p.embedding_model, "batch_size": p.embedding_batch_size, "cpu_linear": p.cpu_linear}
findings, summary = audit_published(release, p.countries, p.names, p.codes, p.expect_norms,
                                    p.expect_scenarios, p.expect_questions, p.near_duplicate_jaccard,
                                    encoder, p.ipip120_key, p.ipip300_key)
for path, table in ((job.output.findings, findings), (job.output.summary, summary)):
    job.write_table(table, path, counts={"findings": len(findings)}, extra={"release": str(release)})
job.log.info("audit of %s: %d findings\n%s", release, len(findings), summary.to_string())
