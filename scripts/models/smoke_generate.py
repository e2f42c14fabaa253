import pandas as pd

from cultalign.core.job import Job
from cultalign.models import ChatRequest, SamplingParams, ScoreItem, open_client

job = Job(snakemake)
client = open_client(job)
params = SamplingParams(temperature=0.0, max_new_tokens=24, seed=job.seed)
prompts = ["Name one greeting custom in Japan.", "Name one greeting custom in Denmark."]
gens = client.generate([ChatRequest.make(p, params) for p in prompts])
rows = [{"kind": "generate", "prompt": p, "output": g.text.replace("\n", " ")} for p, g in zip(prompts, gens)]
if client.scoring == "none":  # models.<m>.scoring: none - nothing to score with
    rows.append({"kind": "score", "prompt": "bow in Japan", "output": "not scored (scoring: none)"})
else:
    scores = client.score_options([ScoreItem.make("Is it polite to bow when greeting in Japan? Answer Yes or No.",
                                                  ["Yes", "No"], labels=["Yes", "No"])])[0]
    rows.append({"kind": "score", "prompt": "bow in Japan",
                 "output": f"P(Yes)={scores.probs[0]:.3f} mass={scores.valid_mass:.3f} ({scores.strategy})"})
df = pd.DataFrame(rows)
df.insert(0, "model", client.spec.model_id)
df.insert(1, "model_revision", client.spec.revision)
job.write_table(df, job.output[0], client=client, seed=job.seed)
job.log.info("stats %s", client.stats)
