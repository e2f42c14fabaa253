from cultalign.core.job import Job
from cultalign.core.tables import read_tsv
from cultalign.models import SamplingParams, open_client
from cultalign.pact.prompts import template_hashes
from cultalign.pact.survey import run_survey, survey_requests

job = Job(snakemake)
p, model = job.params, job.wildcards.model
reqs = survey_requests(read_tsv(job.input.responses), read_tsv(job.input.validated), p.prompt_formats,
                       p.max_personas_per_item, p.position_audit_items, job.seed)
client = open_client(job)
out = run_survey(reqs, client, SamplingParams.from_config(p.sampling, job.seed))
out.insert(0, "model", model)
job.write_table(out, job.output.table, client=client, seed=job.seed,
                prompt_templates=template_hashes(*[f"survey_{f}" for f in p.prompt_formats]),
                counts={"valid": int(out["valid"].sum()), "invalid": int((~out["valid"]).sum())})
job.log.info("survey: %d prompts; stats %s", len(out), client.stats)
