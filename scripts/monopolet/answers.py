from cultalign.core.job import Job
from cultalign.core.shards import select
from cultalign.core.tables import read_tsv
from cultalign.models import load_client
from cultalign.monopolet.answers import answer_counts, answer_setup, generate_answers
from cultalign.monopolet.prompts import PROMPTS

job = Job(snakemake)
dilemmas = select(read_tsv(job.input.dilemmas, empty_as_na=True), job.wildcards.shard, job.params.n_shards)
llm, params, temperature = answer_setup(job.params.answers, job.params.llm, job.seed)
job.log.info("answer temperature of %s: %s", llm["name"], temperature)
client = load_client({llm["name"]: llm["spec"]}, llm["name"], llm["cache_dir"], writer=job.writer,
                     retry_temperature=llm["retry"]["temperature"], max_attempts=llm["retry"]["max_attempts"],
                     max_cut_share=llm["outputs"]["max_cut_share"])
out = generate_answers(client, dilemmas, params)
counts = answer_counts(dilemmas, out)
job.write_table(out, job.output[0], client=client, seed=job.seed, prompt_templates=PROMPTS.hashes("ask_advice"),
                counts=counts, extra={"answer_temperature": temperature})
job.log.info("%s %s", counts, client.stats)
