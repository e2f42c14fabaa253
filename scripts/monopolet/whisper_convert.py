from cultalign.audio.whisper_model import convert_checked
from cultalign.core.job import Job

job = Job(snakemake)
p = job.params
convert_checked(p.hub_id, p.revision, job.output[0], quantization=p.quantization, sha256=p.sha256)
job.log.info("converted %s@%s -> %s", p.hub_id, p.revision, job.output[0])
