from cultalign.core.job import Job
from cultalign.core.shards import select
from cultalign.core.tables import read_tsv
from cultalign.models import open_client
from cultalign.monopolet.extraction import ExtractionSettings, extract_solutions, solution_items, solutions_table
from cultalign.monopolet.prompts import PROMPTS

job = Job(snakemake)
agent = job.wildcards.agent
items, prompt = solution_items(read_tsv(job.input.dilemmas, empty_as_na=True),
                               read_tsv(job.input.responses, empty_as_na=True), agent)
items = select(items, job.wildcards.shard, job.params.n_shards)
client = open_client(job)
sols, status = extract_solutions(client, items, prompt, ExtractionSettings.from_config(job.params), job.seed)
table, counts = solutions_table(sols, status, agent)
job.write_table(table, job.output[0], client=client, seed=job.seed,
                prompt_templates=PROMPTS.hashes(prompt, "postprocess_solutions"), counts=counts)
job.log.info("%s %s", counts, client.stats)
