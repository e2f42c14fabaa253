from cultalign.core.job import Job
from cultalign.personas.metrics import human_data_label, human_tables

job = Job(snakemake)
p = job.params
tables = human_tables(job.input.human, p.countries)
for name, path in zip(p.tables, job.output):
    job.write_table(tables[name], path, counts={"rows": len(tables[name])},
                    extra={"human_data": human_data_label(p.human_source)})
