from cultalign.core.job import Job
from cultalign.core.tables import read_tsv
from cultalign.models import SamplingParams, open_client
from cultalign.pact.construct import judge_source
from cultalign.pact.prompts import template_hashes

job = Job(snakemake)
p, source = job.params, job.wildcards.source
client = open_client(job)
judged, counts = judge_source(read_tsv(job.input.table), client, source,
                              SamplingParams.from_config(p.judge, job.seed), p.judge_action)
for table, path in ((judged, job.output.table), (counts, job.output.counts)):
    job.write_table(table, path, client=client, seed=job.seed, prompt_templates=template_hashes("judge"),
                    counts={"valid": int(judged["valid"].sum()), "invalid": int((~judged["valid"]).sum()),
                            "judge_action": p.judge_action})
job.log.info("validation %s", counts.to_dict("records"))
