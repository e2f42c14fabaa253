from cultalign.core.job import Job
from cultalign.core.tables import read_tsv
from cultalign.monopolet import figures
from cultalign.monopolet.response_stats import FEATURES

job = Job(snakemake)
table = read_tsv(job.input[0], empty_as_na=True)
if job.params.kind == "figure5":
    figures.figure5(table, job.output[0], figures.scale_note(job.params.scale))
elif job.params.kind == "figure6":
    figures.figure6(table, job.output[0])
elif job.params.kind == "figure7":
    figures.figure7(table, FEATURES, job.output[0])
job.sidecar(job.output[0])
job.log.info("wrote %s", list(job.output))
