from cultalign.core.job import Job
from cultalign.core.tables import read_tsv
from cultalign.models import open_client
from cultalign.personas.generate import GENERATION_TEMPLATES, GenSettings, generate_scenarios, generation_counts
from cultalign.personas.prompts import PROMPTS

job = Job(snakemake)
p = job.params
norms = read_tsv(job.input.norms)
client = open_client(job)
settings = GenSettings(p.temperature, p.max_new_tokens, p.max_regenerations, p.check_threshold)
df = generate_scenarios(client, norms, p.country_name, p.n_scenarios, job.seed, settings, p.max_chars,
                        p.norms_with_scenarios, bound=p.bound_fields)
counts = generation_counts(df, upstream=norms)
job.write_table(df, job.output[0], client=client, seed=job.seed,
                prompt_templates=PROMPTS.hashes(*GENERATION_TEMPLATES), counts=counts)
job.log.info("scenarios: %s", counts)
