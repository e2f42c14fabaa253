from cultalign.personas.instruments import trait_counts
from cultalign.personas.pipeline import cp_items_for
from cultalign.provenance import write_sidecar
from cultalign.smk import setup_logging

log = setup_logging(snakemake)
items, src = cp_items_for(snakemake.input, snakemake.params.cfg, snakemake.wildcards.country)
items.to_csv(snakemake.output[0], sep="\t", index=False)
write_sidecar(snakemake.output[0], config=snakemake.config, counts={"items": len(items), **trait_counts(items)},
              extra={"source": src})
