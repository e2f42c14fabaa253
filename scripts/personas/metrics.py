from cultalign.personas.metrics import build_tables
from cultalign.smk import setup_logging

log = setup_logging(snakemake)
build_tables(list(snakemake.input.mcs), list(snakemake.input.oeg), snakemake.input.human, snakemake.params.cfg,
             dict(zip(snakemake.params.tables, snakemake.output)), snakemake.config)
