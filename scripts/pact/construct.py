from cultalign.core.job import Job
from cultalign.core.tables import read_tsv
from cultalign.models import SamplingParams, open_client
from cultalign.pact.construct import prepare_source, usable_rows
from cultalign.pact.prompts import template_hashes

job = Job(snakemake)
p, source = job.params, job.wildcards.source
client = open_client(job)
rows = usable_rows(read_tsv(job.input.table), p.max_scenarios_per_source)
items = prepare_source(rows, client, source, SamplingParams.from_config(p.preference, job.seed),
                       SamplingParams.from_config(p.rewrite, job.seed), max_field_chars=p.max_field_chars)
ok = items["valid"] & items["rewrite_valid"]
job.write_table(items, job.output.table, client=client, seed=job.seed,
                prompt_templates=template_hashes("rewrite", f"preference_{source}"),
                counts={"valid": int(ok.sum()), "invalid": int((~ok).sum())})
over = items["fields_over_cap"].fillna("").astype(str) != ""
if over.any():
    job.log.warning("%d of %d items have a generated field over pact.construct.max_field_chars=%s (%s); see "
                    "fields_over_cap", int(over.sum()), len(items), p.max_field_chars,
                    items.loc[over, "fields_over_cap"].value_counts().to_dict())
job.log.info("%s: %d of %d items with a valid preference and rewrite", source, int(ok.sum()), len(items))
