from cultalign.core.job import Job
from cultalign.core.provenance import file_hash
from cultalign.personas.instruments import instrument_items, trait_counts

job = Job(snakemake)
name, source = job.wildcards.instrument, job.input[0]
items, excluded = instrument_items(job.params.format, source, name, job.params.bfi_key, job.params.max_items)
job.write_table(items, job.output[0], counts={"items": len(items), **trait_counts(items)},
                extra={"source": source, "source_sha256_16": file_hash(source), "excluded_items": excluded})
