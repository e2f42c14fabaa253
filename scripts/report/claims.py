from cultalign.claims import evaluate, load_claims
from cultalign.smk import setup_logging

log = setup_logging(snakemake)
table = evaluate(load_claims(snakemake.input.claims), snakemake.params.studies, snakemake.params.scale)
table.to_csv(snakemake.output[0], index=False)
log.info("claims: %s", table["status"].value_counts().to_dict())
