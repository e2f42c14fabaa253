from cultalign.personas.release_summary import summary_rule
from cultalign.smk import setup_logging

log = setup_logging(snakemake)
_, _, totals = summary_rule(snakemake.input.mcs, snakemake.input.oeg, snakemake.output.traits,
                            snakemake.output.cells, snakemake.output.totals, snakemake.config)
log.info("run totals:\n%s", totals.to_string())
