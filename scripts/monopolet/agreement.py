from pathlib import Path

from cultalign.core.job import Job
from cultalign.core.tables import read_tsv
from cultalign.monopolet.metrics import agreement_tables

job = Job(snakemake)
solutions = {Path(p).stem: read_tsv(p, empty_as_na=True) for p in job.input.solutions}
matchings = {Path(p).stem: read_tsv(p, empty_as_na=True) for p in job.input.matchings}
summary, per_dilemma, counts = agreement_tables(matchings, solutions)
job.write_table(summary, job.output.summary, counts=counts)
job.write_table(per_dilemma, job.output.per_dilemma, counts=counts)
job.log.info("\n%s", summary.to_string())
