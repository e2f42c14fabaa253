from cultalign.core.job import Job
from cultalign.core.shards import select
from cultalign.core.tables import read_tsv
from cultalign.models import open_client
from cultalign.monopolet.extraction import DilemmaSettings, extract_dilemmas, usable_sections, validity_counts
from cultalign.monopolet.prompts import PROMPTS

job = Job(snakemake)
sections = usable_sections(read_tsv(job.input.sections, empty_as_na=True))
part = select(sections, job.wildcards.shard, job.params.n_shards)
client = open_client(job)
out = extract_dilemmas(client, part, DilemmaSettings.from_config(job.params), job.seed)
counts = validity_counts(out, "dilemmas")
job.write_table(out, job.output[0], client=client, seed=job.seed, prompt_templates=PROMPTS.hashes("extract_dilemma"),
                counts=counts)
job.log.info("%s %s", counts, client.stats)
