from cultalign.core.job import Job
from cultalign.core.tables import read_tsv
from cultalign.monopolet.embeddings import load_embeddings
from cultalign.monopolet.topics import dilemma_topics

job = Job(snakemake)
p = job.params
encoder = load_embeddings(p.encoder)
doc_topics, topics, n_docs = dilemma_topics(read_tsv(job.input.dilemmas, empty_as_na=True), encoder, p.n_components,
                                            p.min_df, p.stop_words, job.seed, p.keyphrases)
provenance = {"seed": job.seed, "counts": {"documents": n_docs, "topics": len(topics)},
              "extra": {"encoder": getattr(encoder, "model_id", "")}}
job.write_table(doc_topics, job.output.doc_topics, **provenance)
job.write_table(topics, job.output.topics, **provenance)
job.log.info("\n%s", topics.to_string())
