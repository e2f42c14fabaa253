from cultalign.core.job import Job
from cultalign.pact.human import analyse, is_synthetic, read_responses

job = Job(snakemake)
h = read_responses(job.input.responses)
gaps, agreement, cells, relation = analyse(h, job.params.min_group_size, list(job.params.agreement_cell))
for table, path in ((gaps, job.output.gaps), (agreement, job.output.agreement), (cells, job.output.cells),
                    (relation, job.output.relation)):
    job.write_table(table, path, counts={"valid": len(h), "invalid": 0},
                    extra={"synthetic_human_data": is_synthetic(h)})
