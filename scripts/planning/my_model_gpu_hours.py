from cultalign.core.job import Job
from cultalign.my_model import added_rows, without_model
from cultalign.planning import Tokens, plan, totals
from cultalign.studies import registered

job = Job(snakemake)
p = job.params
cfg = {k: getattr(p, k) for k in ("studies", "models", "default_model", "planning", *registered())}
tokens = Tokens.from_dir(job.input.tokenizer)
table = added_rows(plan(cfg, tokens), plan(without_model(cfg, p.model), tokens))
sums = totals(table)
extra = {"model": p.model, "skipped_studies": dict(p.skips),
         "estimate": "the rows of planning_gpu_hours with the model minus those without it"}
for path, t in ((job.output.table, table), (job.output.totals, sums)):
    job.write_table(t, path, counts={"rules": table["rule"].nunique(), "rows": len(table)}, extra=extra)
job.log.info("what %s adds (estimate):\n%s", p.model, sums.to_string(index=False))
