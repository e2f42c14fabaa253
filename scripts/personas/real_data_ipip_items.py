from cultalign.core.job import Job
from cultalign.personas.real_data import ipip_item_counts

job = Job(snakemake)
table = ipip_item_counts(job.input.folder)
job.write_table(table, job.output[0], extra={"source": job.input.folder})
job.log.info("IPIP-NEO item lists: %d counts", len(table))
