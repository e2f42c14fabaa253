"""cultalign: reproduce three studies of how LLMs handle culture.

The package holds all logic; Snakemake rule scripts under ``scripts/`` are thin
wrappers that read ``snakemake.input``/``params`` and call functions here.
"""

__version__ = "0.1.0"
