from cultalign.core.job import Job
from cultalign.models import open_client
from cultalign.personas.evaluate import EVAL_TEMPLATES
from cultalign.personas.pipeline import oeg_job
from cultalign.personas.prompts import PROMPTS

job = Job(snakemake)
p, wc = job.params, job.wildcards
client = open_client(job)
cells = oeg_job(client, list(job.input.itemtables), p.jobs,
                norms=job.input.norms, human=job.input.human, country=wc.country, country_name=p.country_name,
                model=wc.model, priming_norms=p.priming_norms, sampling=p.oeg, embedding_model=p.embedding_model,
                max_samples=p.max_samples, seed=job.seed, n_norms=p.priming_n_norms,
                release_code=p.release_code, mapping=p.mapping)
for cell, responses_out, samples_out in zip(cells, job.output.responses, job.output.samples):
    for table, path in ((cell.table, responses_out), (cell.samples, samples_out)):
        job.write_table(table, path, client=client, seed=cell.seed, prompt_templates=PROMPTS.hashes(*EVAL_TEMPLATES),
                        counts=cell.counts, extra=cell.extra)
