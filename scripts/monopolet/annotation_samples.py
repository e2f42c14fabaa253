from pathlib import Path

from cultalign.core.job import Job
from cultalign.core.tables import read_tsv
import pandas as pd

from cultalign.monopolet.annotation_samples import dilemma_sample, mapping_sample, matching_sample, solution_sample

job = Job(snakemake)
p = job.params.samples
dilemmas = read_tsv(job.input.dilemmas, empty_as_na=True)
sections = read_tsv(job.input.sections, empty_as_na=True)
chunks = pd.concat([read_tsv(f, empty_as_na=True).assign(episode_id=Path(f).name.removesuffix(".chunks.tsv"))
                    for f in job.input.chunks], ignore_index=True)
a1, a1_counts = mapping_sample(sections, chunks, p["annotators"], p["mapping_per_annotator"], p["mapping_overlap"],
                               job.seed)
job.write_table(a1, job.output.mapping, seed=job.seed, counts=a1_counts)
job.log.info("mapping sample: %s", a1_counts)
d = dilemma_sample(dilemmas, sections, p["annotators"], p["dilemmas_per_annotator"], job.seed)
s = solution_sample(dilemmas, sections, read_tsv(job.input.panel, empty_as_na=True), p["solution_dilemmas"], job.seed)
m = matching_sample({Path(f).stem: read_tsv(f, empty_as_na=True) for f in job.input.matchings},
                    p["matching_per_class"], job.seed)
asked = {"dilemmas": p["annotators"] * p["dilemmas_per_annotator"], "solutions": p["solution_dilemmas"]}
for name, table, out in (("dilemmas", d, job.output.dilemmas), ("solutions", s, job.output.solutions),
                         ("matching", m, job.output.matching)):
    counts = {"rows": len(table)}
    if name in asked:
        counts["asked"] = asked[name]
    job.write_table(table, out, seed=job.seed, counts=counts)
    job.log.info("%s sample: %s", name, counts)
