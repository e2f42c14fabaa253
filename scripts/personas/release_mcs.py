from cultalign.core.job import Job
from cultalign.models import open_client
from cultalign.personas.evaluate import EVAL_TEMPLATES
from cultalign.personas.release_eval import release_mcs, write_json
from cultalign.personas.prompts import PROMPTS
from cultalign.personas.release import release_root

job = Job(snakemake)
release = release_root(job.input.release)
p, wc = job.params, job.wildcards
client = open_client(job)
table, cells, record, counts = release_mcs(client, release, job.input.itemtable, wc.country,
                                           p.country_name, wc.model, p.primings, p.score, p.normalise, p.subsample,
                                           job.seed, p.priming_n_norms,
                                           p.release_code)
job.write_table(table, job.output.scores, client=client, seed=job.seed,
                prompt_templates=PROMPTS.hashes(*EVAL_TEMPLATES), counts=counts,
                extra={"release": str(release)})
job.write_table(cells, job.output.cells, client=client, seed=job.seed)
write_json(job.output.job, record)
job.log.info("mcs cells:\n%s\nclient %s", cells.to_string(), client.stats)
