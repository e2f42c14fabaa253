from cultalign.personas.human import JohnsonLayout, load_key, synthesize_johnson
from cultalign.personas.common import derive_seed
from cultalign.provenance import write_sidecar
from cultalign.smk import setup_logging

log = setup_logging(snakemake)
cfg, form = snakemake.params.cfg, snakemake.wildcards.form
key = load_key(snakemake.input.key)
layout = JohnsonLayout.for_form(form, cfg["human"]["country_width"].get(form))
counts = {cfg["countries"][c]["johnson"]: n for c, n in cfg["human"]["synthetic_n"].items()}
seed = derive_seed(snakemake.params.seed, "synthetic_johnson", form)
means = synthesize_johnson(snakemake.output.dat, key, counts, seed, layout, noise_countries={"Germany": 40},
                           stored_reversed=cfg["human"]["stored_reversed"])
means.insert(0, "note", "SYNTHETIC generating means (not human data)")
means.to_csv(snakemake.output.means, sep="\t", index=False)
write_sidecar(snakemake.output.means, config=snakemake.config, seed=seed, counts=counts,
              extra={"synthetic": True, "raw_file": snakemake.output.dat})
log.info("SYNTHETIC Johnson-layout file written: %s", counts)
