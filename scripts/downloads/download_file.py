from cultalign.download import download
from cultalign.smk import setup_logging

log = setup_logging(snakemake)
key = f"downloads.{snakemake.wildcards.path}"
got = download(snakemake.params.url, snakemake.output[0], snakemake.params.sha256)
log.info("downloaded %s -> %s (sha256 %s)", got.url, got.path, got.sha256)
if not snakemake.params.sha256:
    log.warning("%s.sha256 is not set; the downloaded file has sha256 %s: pin it in the config", key, got.sha256)
