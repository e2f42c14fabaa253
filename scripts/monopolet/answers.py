from cultalign.core.job import Job
from cultalign.core.shards import select
from cultalign.core.tables import read_tsv
from cultalign.models import SamplingParams, open_client
from cultalign.monopolet.answers import answer_counts, generate_answers
from cultalign.monopolet.prompts import PROMPTS

job = Job(snakemake)
dilemmas = select(read_tsv(job.input.dilemmas, empty_as_na=True), job.wildcards.shard, job.params.n_shards)
client = open_client(job)
out = generate_answers(client, dilemmas, SamplingParams.from_config(job.params.answers, job.seed))
counts = answer_counts(dilemmas, out)
job.write_table(out, job.output[0], client=client, seed=job.seed, prompt_templates=PROMPTS.hashes("ask_advice"),
                counts=counts)
job.log.info("%s %s", counts, client.stats)
