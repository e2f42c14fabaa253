from cultalign.core.job import Job
from cultalign.pact.real_data import pact_site_data

job = Job(snakemake)
table = pact_site_data(job.input.data)
job.write_table(table, job.output[0], extra={"source": job.input.data})
job.log.info("PACT site data: %d rows (%d derived)", len(table), int((table["series"] == "derived").sum()))
