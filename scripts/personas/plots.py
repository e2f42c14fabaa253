from cultalign.core.job import Job
from cultalign.personas.figures import make_figures

job = Job(snakemake)
make_figures(job.input.distances, job.input.priming, dict(zip(job.params.figures, job.output)))
for path in job.output:
    job.sidecar(path)
