from cultalign.core.job import Job
from cultalign.core.tables import read_tsv
from cultalign.monopolet import figures
from cultalign.monopolet.topics import topic_map

job = Job(snakemake)
positions = topic_map(read_tsv(job.input.doc_topics, empty_as_na=True), job.seed, job.params.perplexity)
job.write_table(positions, job.output.table, seed=job.seed,
                counts={"documents": len(positions), "topics": int(positions["topic"].nunique())},
                extra={"layout": positions["layout"].iloc[0] if len(positions) else "no documents"})
figures.figure3(positions, read_tsv(job.input.topics, empty_as_na=True), job.output.figure)
job.sidecar(job.output.figure)
job.log.info("wrote %s", list(job.output))
