from cultalign.core.job import Job
from cultalign.pact.figures import region_heatmap_figure

job = Job(snakemake)
region_heatmap_figure(job.input.region_pairs, job.output.region_heatmap)
job.sidecar(job.output.region_heatmap)
job.log.info("appendix B.2 heatmap written: %s", job.output.region_heatmap)
