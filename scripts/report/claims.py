from cultalign.claims import evaluate, facts_table, load_claims, on_real_data_scorecard, summary_table
from cultalign.core.job import Job

job = Job(snakemake)
claims = load_claims(job.input.claims)
table = evaluate(claims, job.params.studies, job.params.scale, needs_set=job.params.needs_set)
if job.params.get("only_real_data"):  # the real-data target: claims on real inputs and the consistency checks
    keep = {c["id"] for c in claims if on_real_data_scorecard(c)}
    table = table[table["id"].isin(keep)]
table.to_csv(job.output.scorecard, index=False)
job.write_report_page(table, job.output.scorecard)
consistency = table[table["kind"] == "consistency"]
consistency = consistency[["id", "paper", "place", "statement", "status", "reason"]].rename(
    columns={"reason": "arithmetic"})
consistency.to_csv(job.output.consistency, index=False)
job.write_report_page(consistency, job.output.consistency)
facts = facts_table(table)
facts.to_csv(job.output.facts, index=False)
summary = summary_table(table)
summary.to_csv(job.output.summary, index=False)
job.write_report_page(summary, job.output.summary)
job.log.info("claims: %s", table["status"].value_counts().to_dict())
job.log.info("facts: %s", facts["status"].value_counts().to_dict())
