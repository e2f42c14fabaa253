from pathlib import Path

from cultalign import text_vs_code as tvc
from cultalign.core.job import Job

job = Job(snakemake)
loaded = {Path(f).stem: tvc.load(f) for f in job.input.entries}
table = tvc.evaluate({s: loaded[s] for s in job.params.studies if s in loaded}, tables=set(job.input.results))
job.write_table(table, job.output.table,
                counts={"disagreements": len(table), "both_computed": int((table["computed"] == "both").sum())})
job.log.info("text vs code: %d disagreements, %s", len(table), table["computed"].value_counts().to_dict())
