import sys

import pandas as pd

from cultalign.core.job import Job
from cultalign.inputs import COLUMNS

job = Job(snakemake)
table = pd.DataFrame(job.params.inputs, columns=list(COLUMNS))
missing, synthetic = int((~table["present"]).sum()), int(table["synthetic"].sum())
job.write_table(table, job.output[0], counts={"inputs": len(table), "missing": missing, "synthetic": synthetic})
summary = f"preflight: {len(table)} inputs, {missing} not present, {synthetic} synthetic -> {job.output[0]}\n"
# printed on the terminal (Job sends stdout to the rule's log) and logged
for stream in (sys.__stdout__, sys.stdout):
    stream.write(table.to_csv(sep="\t", index=False) + summary)
    stream.flush()
