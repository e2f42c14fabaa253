import json

from cultalign.audio.transcribe import WhisperSettings, load_model, transcribe
from cultalign.provenance import file_hash, write_sidecar
from cultalign.smk import setup_logging

log = setup_logging(snakemake)
settings = WhisperSettings.from_config(dict(snakemake.params.settings))
settings.cpu_threads = snakemake.threads
model = load_model(snakemake.input.model, settings)
segments, timing = transcribe(model, snakemake.input.audio, settings)
segments.to_csv(snakemake.output.segments, sep="\t", index=False)
write_sidecar(snakemake.output.segments, config=snakemake.config,
              counts={"segments": len(segments), "empty_segments": int((segments["text"] == "").sum())},
              extra={"whisper": {"folder": snakemake.input.model,
                                 "config_hash": file_hash(f"{snakemake.input.model}/config.json"),
                                 "settings": settings.__dict__},
                     "timing": timing})
log.info("%s", json.dumps(timing))
