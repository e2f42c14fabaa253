from cultalign.personas.pipeline import run_oeg_rule
from cultalign.smk import client_for, setup_logging

log = setup_logging(snakemake)
client = client_for(snakemake, snakemake.wildcards.model)
jobs = [tuple(j) for j in snakemake.params.jobs]
instruments = list(dict.fromkeys(i for i, _ in jobs))
run_oeg_rule(client, snakemake.input, dict(zip(instruments, snakemake.input.itemtables)), snakemake.wildcards, jobs,
             snakemake.params.cfg, snakemake.params.seed, snakemake.output.responses, snakemake.output.samples,
             snakemake.config)
