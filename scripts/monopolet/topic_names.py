from cultalign.core.job import Job
from cultalign.core.tables import read_tsv
from cultalign.models import open_client
from cultalign.monopolet.topic_names import NamingSettings, name_topics, prompt_hashes

job = Job(snakemake)
client = open_client(job)
names, counts = name_topics(client, read_tsv(job.input.topics, empty_as_na=True),
                            NamingSettings.from_config(job.params), job.seed)
job.write_table(names, job.output[0], client=client, seed=job.seed, prompt_templates=prompt_hashes(), counts=counts)
job.log.info("%s %s\n%s", counts, client.stats, names[["topic", "name", "keyphrases"]].to_string())
