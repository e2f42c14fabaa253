from cultalign.core.job import Job
from cultalign.personas.release_eval import item_counts, release_items
from cultalign.personas.release import release_root

job = Job(snakemake)
release = release_root(job.input.release)
p = job.params
items = release_items(release, job.wildcards.country, p.release_code, p.subsample, p.baselines, p.bfi_key,
                      job.seed)
job.write_table(items, job.output[0], counts=item_counts(items),
                extra={"release": str(release), "subsample": p.subsample})
job.log.info("%d items\n%s", len(items), items.groupby(["instrument", "trait"]).size().to_string())
