from cultalign.retrieval import render_text_pdf
from cultalign.smk import setup_logging

log = setup_logging(snakemake)
pages = render_text_pdf(snakemake.input[0], snakemake.output[0],
                        title=f"cultalign demo corpus (synthetic): {snakemake.wildcards.country}")
log.info("rendered %s: %d page(s)", snakemake.output[0], pages)
