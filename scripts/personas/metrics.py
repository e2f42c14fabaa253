from cultalign.core.job import Job
from cultalign.personas.metrics import build_tables, human_data_label

job = Job(snakemake)
p = job.params
tables = build_tables(list(job.input.mcs), list(job.input.oeg), job.input.human, p.oeg_scores,
                      p.validation)
for name, path in zip(p.tables, job.output):
    job.write_table(tables[name], path, counts={"rows": len(tables[name])},
                    extra={"human_data": human_data_label(p.human_source), "mcs_excluded": p.mcs_excluded})
