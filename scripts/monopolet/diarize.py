from cultalign.audio.diarize import DiarizationSettings, diarize
from cultalign.provenance import write_sidecar
from cultalign.smk import setup_logging

log = setup_logging(snakemake)
settings = DiarizationSettings.from_config(dict(snakemake.params.settings))
settings.num_speakers = snakemake.params.num_speakers
turns = diarize(snakemake.input.audio, settings)
turns.to_csv(snakemake.output.turns, sep="\t", index=False)
write_sidecar(snakemake.output.turns, config=snakemake.config,
              counts={"turns": len(turns), "speakers": int(turns["speaker"].nunique())},
              extra={"diarization": settings.__dict__})
log.info("%d turns, %d speakers", len(turns), turns["speaker"].nunique())
