import pandas as pd

from cultalign.monopolet.mapping import drop_longest
from cultalign.monopolet.shards import gather
from cultalign.provenance import write_sidecar
from cultalign.smk import setup_logging

log = setup_logging(snakemake)
df, counts = gather(list(snakemake.input))
df = drop_longest(df, snakemake.params.drop_longest_fraction)
df["valid"] = df["status"] == "ok"
df.to_csv(snakemake.output[0], sep="\t", index=False)
counts.update({f"status_{k}": int(v) for k, v in df["status"].value_counts().items()})
counts["valid"], counts["invalid"] = int(df["valid"].sum()), int((~df["valid"]).sum())
write_sidecar(snakemake.output[0], config=snakemake.config, counts=counts)
log.info("%s", counts)
