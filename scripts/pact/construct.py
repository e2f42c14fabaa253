from cultalign.core.job import Job
from cultalign.core.tables import read_tsv
from cultalign.models import SamplingParams, open_client
from cultalign.pact.construct import construct_source, usable_rows
from cultalign.pact.prompts import template_hashes

job = Job(snakemake)
p, source = job.params, job.wildcards.source
client = open_client(job)
rows = usable_rows(read_tsv(job.input.table), p.max_scenarios_per_source)
judged, counts = construct_source(rows, client, source, SamplingParams.from_config(p.preference, job.seed),
                                  SamplingParams.from_config(p.rewrite, job.seed),
                                  SamplingParams.from_config(p.judge, job.seed), p.judge_action,
                                  max_field_chars=p.max_field_chars)
for table, path in ((judged, job.output.table), (counts, job.output.counts)):
    job.write_table(table, path, client=client, seed=job.seed,
                    prompt_templates=template_hashes("rewrite", "judge", f"preference_{source}"),
                    counts={"valid": int(judged["valid"].sum()), "invalid": int((~judged["valid"]).sum()),
                            "judge_action": p.judge_action})
over = judged["fields_over_cap"].fillna("").astype(str) != ""
if over.any():
    job.log.warning("%d of %d items have a generated field over pact.construct.max_field_chars=%s (%s); see "
                    "fields_over_cap", int(over.sum()), len(judged), p.max_field_chars,
                    judged.loc[over, "fields_over_cap"].value_counts().to_dict())
job.log.info("validation %s", counts.to_dict("records"))
