import pandas as pd

from cultalign.personas.common import template_hashes
from cultalign.personas.generate import GENERATION_TEMPLATES, generate_scenarios
from cultalign.personas.pipeline import gen_settings, write_table
from cultalign.smk import client_for, setup_logging

log = setup_logging(snakemake)
cfg, wc = snakemake.params.cfg, snakemake.wildcards
norms = pd.read_csv(snakemake.input.norms, sep="\t", keep_default_na=False)
client = client_for(snakemake, wc.model)
df = generate_scenarios(client, norms, cfg["countries"][wc.country]["name"], cfg["generation"]["n_scenarios"],
                        snakemake.config["seed"], gen_settings(cfg, snakemake.config),
                        max_norms=cfg["generation"]["norms_with_scenarios"])
write_table(df, snakemake.output[0], "scenarios", snakemake.config, client, template_hashes(GENERATION_TEMPLATES),
            upstream_invalid=int((~norms["valid"].astype(bool)).sum()))
