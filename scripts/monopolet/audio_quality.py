from cultalign.monopolet.audio_quality import audio_quality
from cultalign.provenance import write_sidecar
from cultalign.smk import setup_logging

log = setup_logging(snakemake)
sides = [f"{p}.provenance.json" for p in snakemake.input.segments]
t = audio_quality(sides, list(snakemake.input.turns), list(snakemake.input.reference))
t.to_csv(snakemake.output[0], sep="\t", index=False)
write_sidecar(snakemake.output[0], config=snakemake.config, counts={"episodes": int(len(t) - 1)})
log.info("\n%s", t.to_string())
