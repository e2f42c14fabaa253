from cultalign.personas.pipeline import run_mcs_rule
from cultalign.smk import client_for, setup_logging

log = setup_logging(snakemake)
client = client_for(snakemake, snakemake.wildcards.model)
tables = dict(zip(snakemake.params.cfg["run_instruments"] + ["cp"], snakemake.input.itemtables))
for (instrument, priming), items_out, samples_out in zip(snakemake.params.jobs, snakemake.output.itemprobs,
                                                         snakemake.output.samples):
    run_mcs_rule(client, snakemake.input, tables[instrument], snakemake.wildcards, instrument, priming,
                 snakemake.params.cfg, snakemake.params.seed, items_out, samples_out, snakemake.config)
