from cultalign.models.prepare import convert_gguf_package
from cultalign.smk import setup_logging

setup_logging(snakemake)
convert_gguf_package(snakemake.params.package, snakemake.output[0])
