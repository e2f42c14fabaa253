from cultalign.core.job import Job
from cultalign.core.tables import read_tsv
from cultalign.monopolet import figures
from cultalign.monopolet.metrics import weighted_topic_scores, with_prefilter_columns

job = Job(snakemake)
scores = weighted_topic_scores(read_tsv(job.input.doc_topics, empty_as_na=True),
                               read_tsv(job.input.per_dilemma, empty_as_na=True))
scores = with_prefilter_columns(scores, read_tsv(job.input.summary, empty_as_na=True))
job.write_table(scores, job.output.table, counts={"rows": len(scores)})
figures.figure8(scores, read_tsv(job.input.topics, empty_as_na=True), job.output.figure)
job.sidecar(job.output.figure)
job.log.info("wrote %s", list(job.output))
