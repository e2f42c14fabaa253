from cultalign.claims import (
    errata_table,
    evaluate,
    facts_table,
    load_claims,
    on_real_data_scorecard,
    summary_table,
)
from cultalign.core.job import Job

job = Job(snakemake)
claims = load_claims(job.input.claims)
table = evaluate(claims, job.params.studies, job.params.scale, needs_set=job.params.needs_set)
if job.params.get("only_real_data"):  # the real-data target: claims on real inputs and the consistency checks
    keep = {c["id"] for c in claims if on_real_data_scorecard(c)}
    table = table[table["id"].isin(keep)]
consistency = table[table["kind"] == "consistency"]
consistency = consistency[["id", "paper", "place", "statement", "status", "reason"]].rename(
    columns={"reason": "arithmetic"})
facts = facts_table(table)
for df, path in ((table, job.output.scorecard), (consistency, job.output.consistency), (facts, job.output.facts),
                 (summary_table(table), job.output.summary), (errata_table(table, claims), job.output.errata)):
    df.to_csv(path, index=False)
    job.write_report_page(df, path)  # the page when the rule declares it
job.log.info("claims: %s", table["status"].value_counts().to_dict())
job.log.info("facts: %s", facts["status"].value_counts().to_dict())
