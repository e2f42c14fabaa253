import pandas as pd

from cultalign.pact import figures
from cultalign.pact.geography import REGIONS
from cultalign.smk import setup_logging

log = setup_logging(snakemake)
i, o = snakemake.input, snakemake.output


def rd(p):
    return pd.read_csv(p, sep="\t", keep_default_na=False, na_values=[""])


persona = rd(i.persona)
synthetic = (persona["human_data"] == "synthetic").all() if len(persona) else False
figures.figure15(persona, o.fig15, synthetic)
figures.figure16(rd(i.persona_country), o.fig16, synthetic)
figures.region_heatmap(rd(i.region_pairs), o.region_heatmap, REGIONS)
log.info("appendix figures written: %s", list(o))
