import pandas as pd

from cultalign.models import ChatRequest, SamplingParams, ScoreItem
from cultalign.provenance import write_sidecar
from cultalign.smk import client_for, setup_logging

log = setup_logging(snakemake)
client = client_for(snakemake, snakemake.params.model)
seed = snakemake.config["seed"]
params = SamplingParams(temperature=0.0, max_new_tokens=24, seed=seed)
prompts = ["Name one greeting custom in Japan.", "Name one greeting custom in Denmark."]
gens = client.generate([ChatRequest.make(p, params) for p in prompts])
scores = client.score_options(
    [ScoreItem.make("Is it polite to bow when greeting in Japan? Answer Yes or No.", ["Yes", "No"])]
)[0]
rows = [{"kind": "generate", "prompt": p, "output": g.text.replace("\n", " ")} for p, g in zip(prompts, gens)]
rows.append({"kind": "score", "prompt": "bow in Japan", "output": f"P(Yes)={scores.probs[0]:.3f} mass={scores.valid_mass:.3f}"})
df = pd.DataFrame(rows)
df.insert(0, "model", client.spec.model_id)
df.insert(1, "model_revision", client.spec.revision)
df.to_csv(snakemake.output[0], sep="\t", index=False)
write_sidecar(snakemake.output[0], config=snakemake.config, client=client, seed=seed)
log.info("stats %s", client.stats)
