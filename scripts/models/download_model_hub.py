from cultalign.models.prepare import download_hub
from cultalign.smk import setup_logging

setup_logging(snakemake)
download_hub(snakemake.params.hub_id, snakemake.params.revision, snakemake.output[0])
