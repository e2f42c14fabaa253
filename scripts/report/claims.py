import pandas as pd

from cultalign.claims import (
    derived_errata,
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
errata = errata_table(table, claims)
for derived_path in job.input.get("derived") or []:  # the checks derived from the inventory of printed numbers
    from cultalign.inventory import load_inventory

    resolutions = load_inventory(job.input.inventory).get("derived_resolutions") or {}
    derived = pd.read_csv(derived_path, sep="\t", keep_default_na=False)
    errata = pd.concat([errata, derived_errata(derived, resolutions)], ignore_index=True)
for df, path in ((table, job.output.scorecard), (consistency, job.output.consistency), (facts, job.output.facts),
                 (summary_table(table), job.output.summary), (errata, job.output.errata)):
    df.to_csv(path, index=False)
    job.write_report_page(df, path)  # the page when the rule declares it
job.log.info("claims: %s", table["status"].value_counts().to_dict())
job.log.info("facts: %s", facts["status"].value_counts().to_dict())
