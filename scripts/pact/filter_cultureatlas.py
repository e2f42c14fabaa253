import pandas as pd

from cultalign.pact.construct import filter_counts, filter_cultureatlas
from cultalign.pact.prompts_io import template_hashes
from cultalign.provenance import write_sidecar
from cultalign.smk import client_for, setup_logging

log = setup_logging(snakemake)
cfg = snakemake.config
df = pd.read_csv(snakemake.input.table, sep="\t", keep_default_na=False)
client = client_for(snakemake, snakemake.params.model)
out = filter_cultureatlas(df, client, cfg["pact"]["construct"]["filter"], cfg["seed"], cfg["retry"]["max_attempts"])
out.to_csv(snakemake.output.table, sep="\t", index=False)
counts = filter_counts(out)
counts.to_csv(snakemake.output.counts, sep="\t", index=False)
for o in snakemake.output:
    write_sidecar(o, config=cfg, client=client, seed=cfg["seed"], prompt_templates=template_hashes("filter_cultureatlas"),
                  counts={"valid": int(out["valid"].sum()), "invalid": int((~out["valid"]).sum())})
log.info("filter counts %s", counts.to_dict("records"))
