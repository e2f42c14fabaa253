from cultalign.core.job import Job
from cultalign.personas.metrics import oeg_tables

job = Job(snakemake)
tables = oeg_tables(list(job.input.oeg), job.params.ttr_sentences)
for name, path in zip(job.params.tables, job.output):
    job.write_table(tables[name], path, counts={"rows": len(tables[name])})
