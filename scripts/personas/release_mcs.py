from cultalign.personas.release_eval import mcs_rule
from cultalign.smk import client_for, setup_logging

log = setup_logging(snakemake)
client = client_for(snakemake, snakemake.wildcards.model)
_, cells = mcs_rule(client, snakemake.input.release, snakemake.input.itemtable, snakemake.params.cfg,
                    snakemake.params.seed, snakemake.wildcards.country, snakemake.wildcards.model,
                    snakemake.output.scores, snakemake.output.cells, snakemake.output.job, snakemake.config)
log.info("mcs cells:\n%s\nclient %s", cells.to_string(), client.stats)
