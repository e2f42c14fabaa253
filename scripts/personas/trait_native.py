from cultalign.personas.instruments import trait_native_table
from cultalign.provenance import write_sidecar
from cultalign.smk import setup_logging

log = setup_logging(snakemake)
table = trait_native_table([(m, p) for m, p in snakemake.params.files])
table.to_csv(snakemake.output[0], sep="\t", index=False)
log.info("TRAIT native scores: %d rows from %d item files", len(table), len(snakemake.params.files))
write_sidecar(snakemake.output[0], config=snakemake.config, seed=snakemake.config["seed"],
              counts={"rows": len(table), "items": int(table["n_items"].sum()),
                      "invalid": int(table["n_invalid"].sum())})
