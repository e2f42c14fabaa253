from pathlib import Path

from cultalign.audio.transcribe import probe_audio
from cultalign.monopolet.episodes import load_manifest
from cultalign.provenance import write_sidecar
from cultalign.smk import setup_logging

log = setup_logging(snakemake)
episodes, dilemmas, discarded = load_manifest(snakemake.input.manifest)
# corrupt or missing audio fails here, naming the file
episodes["audio_seconds"] = [round(probe_audio(Path(snakemake.params.audio_dir) / a), 3) for a in episodes["audio"]]
episodes.to_csv(snakemake.output.episodes, sep="\t", index=False)
discarded.to_csv(snakemake.output.discarded, sep="\t", index=False)
dilemmas.to_csv(snakemake.output.dilemmas, sep="\t", index=False)
counts = {"episodes_kept": len(episodes), "episodes_discarded_no_dilemmas": len(discarded),
          "dilemma_summaries": len(dilemmas)}
for out in snakemake.output:
    write_sidecar(out, config=snakemake.config, counts=counts)
log.info("%s", counts)
