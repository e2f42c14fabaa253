from cultalign.core.job import Job
from cultalign.personas.human import human_scores

job = Job(snakemake)
p = job.params
scores, counts, provenance = human_scores(job.input.raw, job.input.key, job.wildcards.form, p.country_width,
                                          p.stored_reversed, p.countries, p.johnson, p.paper_n)
job.write_table(scores, job.output.scores, **provenance)
job.write_table(counts, job.output.counts, **provenance)
job.log.info("%s: %s", job.wildcards.form, counts.to_string())
