import pandas as pd

from cultalign.pact.annotation import agreement_table
from cultalign.provenance import write_sidecar
from cultalign.smk import setup_logging

log = setup_logging(snakemake)
ann = pd.read_csv(snakemake.input.table, sep="\t")
out = agreement_table(ann, snakemake.input.table)
out.to_csv(snakemake.output.table, sep="\t", index=False)
write_sidecar(snakemake.output.table, config=snakemake.config, seed=snakemake.config["seed"],
              counts={"valid": len(ann), "invalid": 0})
