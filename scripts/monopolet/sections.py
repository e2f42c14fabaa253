from cultalign.core.job import Job
from cultalign.core.tables import read_tsv
from cultalign.models import open_client
from cultalign.monopolet.embeddings import load_embeddings
from cultalign.monopolet.mapping import MappingSettings, episode_sections
from cultalign.monopolet.prompts import PROMPTS

job = Job(snakemake)
p = job.params
client = open_client(job)
embedder = load_embeddings(p.embeddings)
sections, chunks, counts = episode_sections(
    read_tsv(job.input.transcript, empty_as_na=True), read_tsv(job.input.summaries, empty_as_na=True),
    job.wildcards.episode, embedder, client, MappingSettings.from_config(p), p.chunk_sentences,
    p.prize["keywords"], p.prize["tail_fraction"])
job.write_table(sections, job.output.sections, client=client, prompt_templates=PROMPTS.hashes("check_intro"),
                counts=counts, extra={"embeddings": getattr(embedder, "model_id", str(p.embeddings))})
job.write_table(chunks, job.output.chunks, counts={"chunks": len(chunks)})
job.log.info("%s", counts)
