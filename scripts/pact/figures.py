import pandas as pd

from cultalign.pact import figures
from cultalign.smk import setup_logging

log = setup_logging(snakemake)
i, o = snakemake.input, snakemake.output


def rd(p):
    return pd.read_csv(p, sep="\t", keep_default_na=False, na_values=[""])


figures.figure3(rd(i.by_model_config), o.fig3)
figures.figure4(rd(i.by_model_kind), o.fig4, rd(i.model_pairs))
figures.figure5(rd(i.demographics), rd(i.regions), o.fig5)
gaps = rd(i.gaps)
synthetic = (gaps["data"] == "synthetic").all()
figures.figure6(gaps, rd(i.agreement), o.fig6, synthetic)
figures.figure7(rd(i.alignment), o.fig7, synthetic)
