from cultalign.core.job import Job
from cultalign.models.prepare import download_hub

job = Job(snakemake)
download_hub(job.params.hub_id, job.params.revision, job.output[0])
