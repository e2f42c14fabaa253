from cultalign.core.job import Job
from cultalign.pact.figures import appendix_figures

job = Job(snakemake)
i, o = job.input, job.output
appendix_figures(i.persona, i.persona_country, o.fig15, o.fig16)
for path in o:
    job.sidecar(path)
job.log.info("appendix figures written: %s", list(o))
