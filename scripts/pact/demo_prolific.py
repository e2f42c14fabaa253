from cultalign.core.job import Job
from cultalign.core.tables import read_tsv
from cultalign.pact.human import SYNTHETIC_LABEL, demo_export, write_export

job = Job(snakemake)
p = job.params
df = demo_export(read_tsv(job.input.validated), p.max_scenarios, p.participant_countries, p.participants_per_country,
                 p.scenarios_per_participant, p.attention_answer, job.seed)
write_export(df, job.output.export)
job.sidecar(job.output.export, seed=job.seed, counts={"rows": len(df)}, extra={"synthetic": SYNTHETIC_LABEL})
job.log.info("SYNTHETIC Prolific-format export: %d rows", len(df))
