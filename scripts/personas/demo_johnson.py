from cultalign.core.job import Job
from cultalign.personas.human import demo_johnson

job = Job(snakemake)
p = job.params
means, seed, counts = demo_johnson(job.output.dat, job.input.key, job.wildcards.form, p.country_width,
                                   p.stored_reversed, p.respondents, p.johnson, job.seed)
job.sidecar(job.output.dat, seed=seed, counts=counts, extra={"synthetic": True})
job.write_table(means, job.output.means, seed=seed, counts=counts,
                extra={"synthetic": True, "raw_file": job.output.dat})
job.log.info("SYNTHETIC Johnson-layout file written: %s", counts)
