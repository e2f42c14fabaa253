import json

from cultalign.audio.transcribe import WhisperSettings, load_model, transcribe
from cultalign.core.job import Job
from cultalign.core.provenance import file_hash

job = Job(snakemake)
settings = WhisperSettings.from_config({**dict(job.params.items()), "cpu_threads": job.threads})
model = load_model(job.input.model, settings)
segments, timing = transcribe(model, job.input.audio, settings)
job.write_table(segments, job.output.segments,
                counts={"segments": len(segments), "empty_segments": int((segments["text"] == "").sum())},
                extra={"whisper": {"folder": job.input.model,
                                   "config_hash": file_hash(f"{job.input.model}/config.json"),
                                   "settings": settings.__dict__},
                       "timing": timing})
job.log.info("%s", json.dumps(timing))
