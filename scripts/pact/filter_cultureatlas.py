from cultalign.core.job import Job
from cultalign.core.tables import read_tsv
from cultalign.models import SamplingParams, open_client
from cultalign.pact.construct import filter_counts, filter_cultureatlas
from cultalign.pact.prompts import template_hashes

job = Job(snakemake)
client = open_client(job)
out = filter_cultureatlas(read_tsv(job.input.table), client, SamplingParams.from_config(job.params.sampling, job.seed),
                          max_rows=job.params.max_rows)
counts = filter_counts(out)
for table, path in ((out, job.output.table), (counts, job.output.counts)):
    job.write_table(table, path, client=client, seed=job.seed, prompt_templates=template_hashes("filter_cultureatlas"),
                    counts={"valid": int(out["valid"].sum()), "invalid": int((~out["valid"]).sum())})
job.log.info("filter counts %s", counts.to_dict("records"))
