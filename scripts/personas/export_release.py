from cultalign.personas.release import export_release
from cultalign.smk import setup_logging

log = setup_logging(snakemake)
counts = export_release(list(snakemake.input.norms), list(snakemake.input.scenarios), list(snakemake.input.questions),
                        snakemake.params.countries, snakemake.output[0])
log.info("exported: %s", counts)
