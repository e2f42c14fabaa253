import pandas as pd

from cultalign.pact.human import synthetic_prolific
from cultalign.smk import setup_logging

log = setup_logging(snakemake)
cfg = snakemake.config
v = pd.read_csv(snakemake.input.validated, sep="\t", keep_default_na=False)
v = v[v["kept"].astype(str) == "True"]
hc = cfg["pact"]["human"]
if hc["max_scenarios"]:
    v = v.head(hc["max_scenarios"])
df = synthetic_prolific(v, {**hc, "attention_answer": hc["attention_answer"]}, cfg["seed"])
df.to_csv(snakemake.output.export, index=False)
log.info("SYNTHETIC Prolific-format export: %d rows", len(df))
