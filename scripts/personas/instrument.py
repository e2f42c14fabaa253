from cultalign.personas.instruments import load_instrument, trait_counts
from cultalign.personas.pipeline import limit_items
from cultalign.provenance import file_hash, write_sidecar
from cultalign.smk import setup_logging

log = setup_logging(snakemake)
cfg, name = snakemake.params.cfg, snakemake.wildcards.instrument
spec = cfg["instruments"][name]
loaded = load_instrument(spec["format"], snakemake.input[0], name, cfg["bfi_key"])
excluded = dict(loaded.attrs.get("excluded", {}))  # e.g. TRAIT's Dark Triad items (not Big Five)
if excluded:
    log.info("%s: left out %d items outside the Big Five: %s", name, sum(excluded.values()), excluded)
items = limit_items(loaded, spec["max_items"])
items.to_csv(snakemake.output[0], sep="\t", index=False)
write_sidecar(snakemake.output[0], config=snakemake.config, counts={"items": len(items), **trait_counts(items)},
              extra={"source": snakemake.input[0], "source_sha256_16": file_hash(snakemake.input[0]),
                     "excluded_items": excluded})
