from cultalign.core.job import Job
from cultalign.personas.instruments import cp_instrument, trait_counts

job = Job(snakemake)
items, src = cp_instrument(job.params.max_items, questions=job.input.get("questions"),
                           release=job.input.get("release"), release_code=job.params.release_code)
job.write_table(items, job.output[0], counts={"items": len(items), **trait_counts(items)}, extra={"source": src})
