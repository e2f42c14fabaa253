from cultalign.core.job import Job
from cultalign.pact.analysis import decision_counts, gather_decisions

job = Job(snakemake)
out = gather_decisions(list(job.input.shards), job.params.model_kinds)
job.write_table(out, job.output.table, counts=decision_counts(out))
job.log.info("decisions: %d rows", len(out))
