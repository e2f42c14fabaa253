from cultalign.audio.diarize import DiarizationSettings, diarize
from cultalign.core.job import Job

job = Job(snakemake)
settings = DiarizationSettings.from_config(job.params)
turns = diarize(job.input.audio, settings)
job.write_table(turns, job.output.turns, counts={"turns": len(turns), "speakers": int(turns["speaker"].nunique())},
                extra={"diarization": settings.__dict__})
job.log.info("%d turns, %d speakers", len(turns), turns["speaker"].nunique())
