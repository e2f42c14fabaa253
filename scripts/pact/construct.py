import pandas as pd

from cultalign.pact.construct import generate_preferences, judge_items, rewrite_scenarios, validation_counts
from cultalign.pact.prompts_io import template_hashes
from cultalign.provenance import write_sidecar
from cultalign.smk import client_for, setup_logging

log = setup_logging(snakemake)
cfg = snakemake.config
pc = cfg["pact"]["construct"]
seed, attempts = cfg["seed"], cfg["retry"]["max_attempts"]
df = pd.read_csv(snakemake.input.table, sep="\t", keep_default_na=False)
if "keep" in df.columns:  # CultureAtlas after the filter
    df = df[df["keep"].astype(str) == "True"]
if pc["max_scenarios_per_source"]:
    df = df.head(pc["max_scenarios_per_source"])
client = client_for(snakemake, snakemake.params.model)
prefs = generate_preferences(df, client, pc["preference"], seed, attempts)
rew = rewrite_scenarios(prefs, client, pc["rewrite"], seed, attempts)
judged = judge_items(rew, client, pc["judge"], seed, attempts)
judged["kept"] = judged["passed"]
if pc["judge_action"] == "keep_flagged":
    judged["kept"] = judged["valid"] & judged["rewrite_valid"]
judged.to_csv(snakemake.output.table, sep="\t", index=False)
counts = validation_counts(judged)
counts = pd.concat([counts, pd.DataFrame([{"source": snakemake.wildcards.source, "quantity": "kept",
                                           "value": int(judged["kept"].sum())}])], ignore_index=True)
counts.to_csv(snakemake.output.counts, sep="\t", index=False)
names = ["rewrite", "judge", f"preference_{snakemake.wildcards.source}"]
for o in snakemake.output:
    write_sidecar(o, config=cfg, client=client, seed=seed, prompt_templates=template_hashes(*names),
                  counts={"valid": int(judged["valid"].sum()), "invalid": int((~judged["valid"]).sum()),
                          "judge_action": pc["judge_action"]})
log.info("validation %s", counts.to_dict("records"))
