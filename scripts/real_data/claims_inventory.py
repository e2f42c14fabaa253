from cultalign.claims import load_claims
from cultalign.core.job import Job
from cultalign.inventory import (
    InventoryError,
    classify,
    coverage_problems,
    derived_checks,
    load_inventory,
    paper_texts,
    read_papers,
    summary,
    table,
)

job = Job(snakemake)
inventory = load_inventory(job.input.inventory)
claims = load_claims(job.input.claims)
texts = paper_texts(inventory, job.input.texts)
mentions = classify(read_papers(inventory, job.input.texts), inventory, claims)
problems = coverage_problems(mentions, inventory, claims)
if problems:
    raise InventoryError(f"{job.input.inventory}: {len(problems)} problem(s):\n" + "\n".join(problems))
job.write_table(table(mentions), job.output.numbers, extra={"source": job.input.texts})
derived = derived_checks(mentions, claims, texts)
job.write_table(derived, job.output.derived, extra={"source": job.input.texts})
counts = summary(mentions, derived)
job.write_table(counts, job.output.summary, extra={"source": job.input.texts})
job.log.info("inventory: %s", counts[counts.group == "total"].to_dict("records"))
