from cultalign.download import download
from cultalign.smk import setup_logging

log = setup_logging(snakemake)
got = download(snakemake.params.url, snakemake.output[0], snakemake.params.sha256)
log.info("downloaded %s -> %s (sha256 %s)", got.url, got.path, got.sha256)
