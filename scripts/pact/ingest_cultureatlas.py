from cultalign.pact.ingest import cultureatlas_summary, load_cultureatlas
from cultalign.provenance import write_sidecar
from cultalign.smk import setup_logging

log = setup_logging(snakemake)
df = load_cultureatlas(snakemake.input.data)
df.to_csv(snakemake.output.table, sep="\t", index=False)
summary = cultureatlas_summary(df)
summary.to_csv(snakemake.output.summary, sep="\t", index=False)
for out in snakemake.output:
    write_sidecar(out, config=snakemake.config, seed=snakemake.config["seed"],
                  counts={"rows": len(df), "valid": len(df), "invalid": 0}, extra={"source": snakemake.input.data})
log.info("CultureAtlas: %s", summary.to_dict("records"))
