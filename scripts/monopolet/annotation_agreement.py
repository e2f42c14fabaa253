from cultalign.core.job import Job
from cultalign.core.provenance import file_hash
from cultalign.monopolet.annotation import annotation_table

job = Job(snakemake)
t = annotation_table(job.params.mapping, job.params.matching, job.params.dilemmas)
job.write_table(t, job.output[0], counts={"rows": len(t)},
                extra={"annotation_files": {f: file_hash(f) for f in job.input}})
job.log.info("\n%s", t.to_string())
