from cultalign.personas.pipeline import download_checked
from cultalign.smk import setup_logging

log = setup_logging(snakemake)
h = snakemake.params.cfg["human"]
form = snakemake.wildcards.form
download_checked(h["urls"][form], h["sha256"].get(form), snakemake.output[0])
