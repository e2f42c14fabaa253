from cultalign.core.job import Job
from cultalign.personas.instruments import trait_native_table

job = Job(snakemake)
files = [(m, path) for m, path in job.params.files]
table = trait_native_table(files)
job.log.info("TRAIT native scores: %d rows from %d item files", len(table), len(files))
job.write_table(table, job.output[0], counts={"rows": len(table), "items": int(table["n_items"].sum()),
                                              "invalid": int(table["n_invalid"].sum())})
