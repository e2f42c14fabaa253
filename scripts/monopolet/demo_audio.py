from cultalign.audio.tts import synthesize
from cultalign.smk import setup_logging

log = setup_logging(snakemake)
turns = synthesize(snakemake.input.script, snakemake.output.wav, snakemake.output.turns, speed=snakemake.params.speed)
log.info("SYNTHETIC demo audio %s: %d lines, %.1f s, speakers %s", snakemake.output.wav, len(turns),
         turns["end"].max(), sorted(turns["speaker"].unique()))
