from cultalign.audio.tts import synthesize
from cultalign.core.job import Job

job = Job(snakemake)
turns = synthesize(job.input.script, job.output.wav, job.output.turns, speed=job.params.speed)
for out in (job.output.wav, job.output.turns):
    job.sidecar(out, counts={"lines": len(turns)}, extra={"synthetic": True, "script": job.input.script})
job.log.info("SYNTHETIC demo audio %s: %d lines, %.1f s, speakers %s", job.output.wav, len(turns),
             turns["end"].max(), sorted(turns["speaker"].unique()))
