from cultalign.core.job import Job
from cultalign.monopolet.gathering import gather_parts

job = Job(snakemake)
df, counts, shared = gather_parts(list(job.input))
job.write_table(df, job.output[0], counts=counts, extra=shared)
job.log.info("%d rows from %d shards; counts %s", len(df), len(job.input), counts)
