import pandas as pd

from cultalign.pact.behaviour import run_generation, run_logprob
from cultalign.pact.expand import conditions
from cultalign.pact.prompts_io import template_hashes
from cultalign.provenance import write_sidecar
from cultalign.smk import client_for, setup_logging

log = setup_logging(snakemake)
cfg = snakemake.config
bc = cfg["pact"]["behaviour"]
inst = pd.read_csv(snakemake.input.instances, sep="\t", keep_default_na=False)
inst["culture_is_A"] = inst["culture_is_A"].astype(str) == "True"
conds = conditions(inst, bc["configurations"], bc["demo_ablations"], bc["system_prompts"])
shard, n_shards = int(snakemake.wildcards.shard), bc["shards"]
conds = conds.iloc[shard::n_shards].reset_index(drop=True)
client = client_for(snakemake, snakemake.wildcards.model)
gen = run_generation(conds, client, bc, cfg["seed"], cfg["retry"]["max_attempts"])
out = conds.merge(gen, on="condition_id", validate="one_to_one")
if bc["logprob"]:
    out = out.merge(run_logprob(conds, client), on="condition_id", validate="one_to_one")
out.to_csv(snakemake.output.table, sep="\t", index=False)
write_sidecar(snakemake.output.table, config=cfg, client=client, seed=cfg["seed"],
              prompt_templates=template_hashes("decision", "system_balance", "system_no_balance"),
              counts={"valid": int(gen["valid"].sum()), "invalid": int((~gen["valid"]).sum()), "shard": shard})
log.info("shard %s: %d prompts, %d UNKNOWN; stats %s", shard, len(gen), int((~gen["valid"]).sum()), client.stats)
