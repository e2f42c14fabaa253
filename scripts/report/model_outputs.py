from pathlib import Path

from cultalign.core.job import Job
from cultalign.core.output_counts import output_count_rows

job = Job(snakemake)
table = output_count_rows(Path(job.output.table).parent, exclude=[job.output.table])  # results/
job.write_table(table, job.output.table, counts={"tables": len(table), "cut": int(table["cut"].sum())})
job.log.info("model outputs of %d tables: %s", len(table),
             table[["outputs", "length_stopped", "empty", "cut"]].sum().to_dict())
