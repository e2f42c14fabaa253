from cultalign.core.job import Job
from cultalign.planning import Tokens, plan, totals
from cultalign.studies import registered

job = Job(snakemake)
p = job.params
cfg = {k: getattr(p, k) for k in ("studies", "models", "planning", *registered())}
table = plan(cfg, Tokens.from_dir(job.input.tokenizer), p.default_model)
sums = totals(table)
for path, t in ((job.output.table, table), (job.output.totals, sums)):
    job.write_table(t, path, counts={"rules": table["rule"].nunique(), "rows": len(table)},
                    extra={"estimate": "prompt tokens with planning.tokenizer_model's tokenizer; generated tokens "
                           "at max_new_tokens; GPU-hours at planning.throughput"})
job.log.info("GPU-hours (estimate) by study:\n%s", sums.to_string(index=False))
