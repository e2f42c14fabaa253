from cultalign.personas.pipeline import run_audit
from cultalign.smk import setup_logging

log = setup_logging(snakemake)
run_audit(snakemake.input.release, snakemake.params.cfg, snakemake.params.countries, snakemake.params.external,
          snakemake.output.findings, snakemake.output.summary, snakemake.config)
