from cultalign.personas.figures import make_figures
from cultalign.smk import setup_logging

log = setup_logging(snakemake)
make_figures(snakemake.input.distances, snakemake.input.priming, dict(zip(snakemake.params.figures, snakemake.output)))
