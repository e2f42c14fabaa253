from cultalign.personas.common import template_hashes
from cultalign.personas.generate import GENERATION_TEMPLATES, generate_norms
from cultalign.personas.pipeline import gen_settings, write_table
from cultalign.retrieval import load_index, retrieve
from cultalign.smk import client_for, setup_logging

log = setup_logging(snakemake)
cfg, wc = snakemake.params.cfg, snakemake.wildcards
store = load_index(snakemake.input.index, cfg["corpus"]["embedding_model"])
client = client_for(snakemake, wc.model)
g = cfg["generation"]
df = generate_norms(client, lambda q: retrieve(store, q, cfg["corpus"]["top_k"]), wc.country,
                    cfg["countries"][wc.country]["name"], g["n_norms"], g["topics"], snakemake.config["seed"],
                    gen_settings(cfg, snakemake.config))
write_table(df, snakemake.output[0], "norms", snakemake.config, client, template_hashes(GENERATION_TEMPLATES))
