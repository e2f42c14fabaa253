from cultalign.claims import evaluate, load_claims
from cultalign.core.job import Job

job = Job(snakemake)
table = evaluate(load_claims(job.input.claims), job.params.studies, job.params.scale)
table.to_csv(job.output.scorecard, index=False)
consistency = table[table["kind"] == "consistency"]
consistency[["id", "paper", "place", "statement", "status", "reason"]].rename(
    columns={"reason": "arithmetic"}).to_csv(job.output.consistency, index=False)
job.log.info("claims: %s", table["status"].value_counts().to_dict())
