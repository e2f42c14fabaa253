import pandas as pd

from cultalign import findings as fd
from cultalign.claims import evaluate, facts_table, load_claims, on_real_data_scorecard, summary_table
from cultalign.core.job import Job

job = Job(snakemake)
claims = load_claims(job.input.claims)
table = evaluate(claims, job.params.studies, job.params.scale, needs_set=job.params.needs_set)
if job.params.get("only_real_data"):  # the real-data target: claims on real inputs and the consistency checks
    keep = {c["id"] for c in claims if on_real_data_scorecard(c)}
    table = table[table["id"].isin(keep)]
consistency = table[table["kind"] == "consistency"]
consistency = consistency[["id", "paper", "place", "statement", "status", "reason", "evidence"]].rename(
    columns={"reason": "arithmetic"})
facts = facts_table(table)

# every check that could show a paper wrong, from each source; the findings on the errata page
checks = [fd.consistency_checks(table, claims)]
for derived_path in job.input.get("derived") or []:  # the checks derived from the inventory of printed numbers
    from cultalign.inventory import load_inventory

    resolutions = load_inventory(job.input.inventory).get("derived_resolutions") or {}
    checks.append(fd.derived_check_rows(pd.read_csv(derived_path, sep="\t", keep_default_na=False), resolutions))
for path in job.input.get("statements") or []:  # the statements in words checked against their data
    checks.append(fd.statement_check_rows(pd.read_csv(path, sep="\t", keep_default_na=False)))
if job.input.get("text_vs_code"):  # the disagreements of paper text and authors' code
    checks.append(fd.text_vs_code_check_rows(pd.read_csv(job.input.text_vs_code, sep="\t", keep_default_na=False)))
checks = pd.concat(checks, ignore_index=True)
groups = fd.load_findings(job.input.claims)
errata = fd.findings_table(checks, groups)
summary = pd.concat([summary_table(table), fd.summary(checks, errata)], ignore_index=True)

for df, path in ((table, job.output.scorecard), (consistency, job.output.consistency), (facts, job.output.facts),
                 (summary, job.output.summary), (checks, job.output.checks)):
    df.to_csv(path, index=False)
    job.write_report_page(df, path)  # the page when the rule declares it
errata.to_csv(job.output.errata, index=False)
job.write_report_page(errata, job.output.errata, notes=fd.page_notes(checks, errata))
job.log.info("claims: %s", table["status"].value_counts().to_dict())
job.log.info("facts: %s", facts["status"].value_counts().to_dict())
job.log.info("findings: %s", errata["status"].value_counts().to_dict())
