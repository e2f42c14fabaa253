from cultalign.core.download import fetch_entry
from cultalign.core.job import Job

job = Job(snakemake)
fetch_entry(f"downloads.{job.wildcards.path}", job.params.entry, job.output.data, job.output.source, job.log)
