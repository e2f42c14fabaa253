from cultalign.core.job import Job
from cultalign.monopolet.gathering import gather_sections, read_parts, summed_counts

job = Job(snakemake)
paths = list(job.input)
df, counts = gather_sections(read_parts(paths), summed_counts(paths), job.params.drop_longest_fraction)
job.write_table(df, job.output[0], counts=counts)
job.log.info("%s", counts)
