from cultalign.core.job import Job
from cultalign.monopolet import figures
from cultalign.monopolet.metrics import eaa_grid

job = Job(snakemake)
grid = eaa_grid(list(job.params.grid["output_lengths"]), int(job.params.grid["steps"]))
counts = {"grid_points": len(grid), "undefined_eaa": int(grid["EAA"].isna().sum())}
job.write_table(grid, job.output.table, counts=counts)
figures.figure9(grid, job.output.figure)
job.sidecar(job.output.figure)
job.log.info("wrote %s", list(job.output))
