from cultalign.core.job import Job
from cultalign.core.provenance import sidecar_path
from cultalign.monopolet.audio_quality import audio_quality

job = Job(snakemake)
t = audio_quality([sidecar_path(p) for p in job.input.segments], list(job.input.turns), list(job.input.reference))
job.write_table(t, job.output[0], counts={"episodes": int(len(t) - 1)})
job.log.info("\n%s", t.to_string())
