from cultalign.pact.ingest import load_normad, normad_summary
from cultalign.provenance import write_sidecar
from cultalign.smk import setup_logging

log = setup_logging(snakemake)
df = load_normad(snakemake.input.data)
overall, per_country = normad_summary(df)
df.to_csv(snakemake.output.table, sep="\t", index=False)
overall.to_csv(snakemake.output.summary, sep="\t", index=False)
per_country.to_csv(snakemake.output.per_country, sep="\t", index=False)
for out in snakemake.output:
    write_sidecar(out, config=snakemake.config, seed=snakemake.config["seed"],
                  counts={"rows": len(df), "valid": len(df), "invalid": 0}, extra={"source": snakemake.input.data})
log.info("NormAd: %s", overall.to_dict("records"))
