from cultalign.core.job import Job
from cultalign.personas.instruments import cp_instrument, trait_counts
from cultalign.personas.release import release_root

job = Job(snakemake)
release = release_root(job.input.release) if "release" in job.input.keys() else None
items, src = cp_instrument(job.params.max_items, questions=job.input.get("questions"),
                           release=release, release_code=job.params.release_code)
job.write_table(items, job.output[0], counts={"items": len(items), **trait_counts(items)}, extra={"source": src})
