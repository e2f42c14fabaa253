from functools import partial

from cultalign.core.job import Job
from cultalign.models import open_client
from cultalign.personas.generate import GENERATION_TEMPLATES, GenSettings, generate_norms, generation_counts
from cultalign.personas.prompts import PROMPTS
from cultalign.retrieval import load_index, retrieve

job = Job(snakemake)
p, wc = job.params, job.wildcards
api = None
if p.embedder:  # the hosted embedding model the index was built with (queries cached like its chunks)
    from cultalign.models.embeddings import open_embeddings

    api = open_embeddings(p.embedder, writer=job.writer)
store = load_index(job.input.index, p.embedding_model, api)
client = open_client(job)
settings = GenSettings(p.temperature, p.max_new_tokens, p.max_regenerations, p.check_threshold)
df = generate_norms(client, partial(retrieve, store, k=p.top_k), wc.country, p.country_name, p.n_norms, p.topics,
                    job.seed, settings, p.max_chars, bound=p.bound_fields)
counts = generation_counts(df)
job.write_table(df, job.output[0], client=client, seed=job.seed,
                prompt_templates=PROMPTS.hashes(*GENERATION_TEMPLATES), counts=counts)
job.log.info("norms: %s", counts)
