from cultalign.core.job import Job
from cultalign.core.tables import read_tsv
from cultalign.pact.analysis import behaviour_tables

job = Job(snakemake)
p = job.params
tables, counts = behaviour_tables(read_tsv(job.input.table, empty_as_na=True), p.models, p.model_pairs, p.bootstrap,
                                  job.seed, significance=dict(p.significance))
for name, table in tables.items():
    job.write_table(table, job.output[name], seed=job.seed, counts=counts)
job.log.info("analysis done: %s", counts)
