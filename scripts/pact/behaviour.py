from cultalign.core.job import Job
from cultalign.core.tables import read_tsv
from cultalign.models import SamplingParams, open_client
from cultalign.pact.behaviour import decide, shard_conditions
from cultalign.pact.prompts import template_hashes

job = Job(snakemake)
p, shard = job.params, job.wildcards.shard
conds = shard_conditions(read_tsv(job.input.instances), p.configurations, p.demo_ablations, p.system_prompts,
                         shard, p.shards)
client = open_client(job)
out = decide(conds, client, SamplingParams.from_config(p.sampling, job.seed), p.logprob)
n_unknown = int((~out["valid"]).sum())
job.write_table(out, job.output.table, client=client, seed=job.seed,
                prompt_templates=template_hashes("decision", "system_balance", "system_no_balance"),
                counts={"valid": int(out["valid"].sum()), "invalid": n_unknown, "shard": int(shard)})
job.log.info("shard %s: %d prompts, %d UNKNOWN; stats %s", shard, len(out), n_unknown, client.stats)
