from cultalign.core.job import Job
from cultalign.core.tables import read_tsv
from cultalign.models import open_client
from cultalign.personas.generate import GENERATION_TEMPLATES, GenSettings, generate_questions, generation_counts
from cultalign.personas.prompts import PROMPTS

job = Job(snakemake)
p = job.params
scenarios = read_tsv(job.input.scenarios)
client = open_client(job)
settings = GenSettings(p.temperature, p.max_new_tokens, p.max_regenerations, p.check_threshold)
df = generate_questions(client, scenarios, p.country_name, job.seed, settings, p.question_chars, p.answer_chars,
                        bound=p.bound_fields)
counts = generation_counts(df, upstream=scenarios)
job.write_table(df, job.output[0], client=client, seed=job.seed,
                prompt_templates=PROMPTS.hashes(*GENERATION_TEMPLATES), counts=counts)
job.log.info("questions: %s", counts)
