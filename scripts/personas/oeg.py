from cultalign.personas.pipeline import run_oeg_rule
from cultalign.smk import client_for, setup_logging

log = setup_logging(snakemake)
client = client_for(snakemake, snakemake.wildcards.model)
instruments = sorted({i for i, _ in snakemake.params.jobs}, key=[i for i, _ in snakemake.params.jobs].index)
tables = dict(zip(instruments, snakemake.input.itemtables))
for (instrument, priming), resp_out, samples_out in zip(snakemake.params.jobs, snakemake.output.responses,
                                                        snakemake.output.samples):
    run_oeg_rule(client, snakemake.input, tables[instrument], snakemake.wildcards, instrument, priming,
                 snakemake.params.cfg, snakemake.params.seed, resp_out, samples_out, snakemake.config)
