from cultalign.personas.release_eval import write_items_rule
from cultalign.smk import setup_logging

log = setup_logging(snakemake)
items = write_items_rule(snakemake.input.release, snakemake.params.cfg, snakemake.wildcards.country,
                         snakemake.params.seed, snakemake.output[0], snakemake.config)
log.info("%d items\n%s", len(items), items.groupby(["instrument", "trait"]).size().to_string())
