import pandas as pd

from cultalign.audio.diarize import merge_speakers
from cultalign.provenance import write_sidecar
from cultalign.smk import setup_logging

log = setup_logging(snakemake)
segments = pd.read_csv(snakemake.input.segments, sep="\t", keep_default_na=False)
turns = pd.read_csv(snakemake.input.turns, sep="\t")
merged = merge_speakers(segments, turns)
merged.to_csv(snakemake.output[0], sep="\t", index=False)
write_sidecar(snakemake.output[0], config=snakemake.config,
              counts={"segments": len(merged), "unknown_speaker": int((merged["speaker"] == "UNKNOWN").sum())})
