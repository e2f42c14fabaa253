import pandas as pd

from cultalign.personas.common import template_hashes
from cultalign.personas.generate import GENERATION_TEMPLATES, generate_questions
from cultalign.personas.pipeline import gen_settings, write_table
from cultalign.smk import client_for, setup_logging

log = setup_logging(snakemake)
cfg, wc = snakemake.params.cfg, snakemake.wildcards
scen = pd.read_csv(snakemake.input.scenarios, sep="\t", keep_default_na=False)
client = client_for(snakemake, wc.model)
df = generate_questions(client, scen, cfg["countries"][wc.country]["name"], snakemake.config["seed"],
                        gen_settings(cfg, snakemake.config))
write_table(df, snakemake.output[0], "questions", snakemake.config, client, template_hashes(GENERATION_TEMPLATES),
            upstream_invalid=int((~scen["valid"].astype(bool)).sum()))
