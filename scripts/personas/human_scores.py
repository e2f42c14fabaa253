from cultalign.personas.pipeline import human_scores
from cultalign.smk import setup_logging

log = setup_logging(snakemake)
human_scores(snakemake.input.raw, snakemake.input.key, snakemake.params.cfg, snakemake.wildcards.form,
             snakemake.output.scores, snakemake.output.counts, snakemake.config)
