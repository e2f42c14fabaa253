from cultalign.core.job import Job
from cultalign.pact.figures import main_figure

job = Job(snakemake)
p = job.params
main_figure(p.number, dict(job.input.items()), job.output.figure, p.get("figure7_setting", "no_persona"))
job.sidecar(job.output.figure)
job.log.info("figure %s written: %s", p.number, job.output.figure)
