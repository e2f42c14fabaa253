from cultalign.core.job import Job
from cultalign.core.tables import read_tsv
from cultalign.monopolet.dataset import dataset_stats

job = Job(snakemake)
i = {k: read_tsv(job.input[k], empty_as_na=True) for k in ("episodes", "discarded", "sections", "dilemmas", "panel")}
t = dataset_stats(i["episodes"], i["discarded"], i["sections"], i["dilemmas"], i["panel"])
job.write_table(t, job.output[0], counts=dict(zip(t["quantity"], t["value"])))
job.log.info("\n%s", t.to_string())
