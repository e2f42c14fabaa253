from cultalign.core.job import Job
from cultalign.models import open_client
from cultalign.personas.evaluate import EVAL_TEMPLATES
from cultalign.personas.release_eval import release_oeg, write_json
from cultalign.personas.prompts import PROMPTS
from cultalign.personas.release import release_root

job = Job(snakemake)
release = release_root(job.input.release)
p, wc = job.params, job.wildcards
client = open_client(job)
table, cells, record, counts = release_oeg(client, release, job.input.itemtable, wc.country,
                                           p.country_name, wc.model, p.primings, p.oeg, p.calibration_items,
                                           p.embedding_model, p.subsample, job.seed, p.priming_n_norms,
                                           p.release_code, mapping=p.mapping)
job.write_table(table, job.output.responses, client=client, seed=job.seed,
                prompt_templates=PROMPTS.hashes(*EVAL_TEMPLATES), counts=counts,
                extra={"release": str(release)})
job.write_table(cells, job.output.cells, client=client, seed=job.seed)
write_json(job.output.job, record)
job.log.info("oeg cells:\n%s\nclient %s", cells.to_string(), client.stats)
