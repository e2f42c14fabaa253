import pandas as pd

from cultalign.pact.human import id_salt, ingest_prolific
from cultalign.provenance import write_sidecar
from cultalign.smk import setup_logging

log = setup_logging(snakemake)
cfg = snakemake.config
hc = cfg["pact"]["human"]
raw = pd.read_csv(snakemake.input.export, dtype=str, keep_default_na=False)
long, counts = ingest_prolific(raw, snakemake.input.export, hc["attention_answer"], id_salt(hc))
synthetic = bool(len(long)) and long["synthetic"].astype(str).str.startswith("SYNTHETIC").all()
long.to_csv(snakemake.output.responses, sep="\t", index=False)
counts["synthetic"] = synthetic
counts.to_csv(snakemake.output.filters, sep="\t", index=False)
for o in snakemake.output:
    write_sidecar(o, config=cfg, seed=cfg["seed"], counts={"valid": len(long), "invalid": 0},
                  extra={"synthetic_human_data": synthetic})
log.info("filters %s", counts.to_dict("records"))
