import time

from cultalign.core.job import Job
from cultalign.core.shards import select
from cultalign.core.tables import read_tsv
from cultalign.models import open_client
from cultalign.monopolet.embeddings import load_embeddings
from cultalign.monopolet.matching import JudgeSettings, match_counts, match_shard, prompt_hashes

job = Job(snakemake)
settings = JudgeSettings.from_config(job.params)
dilemmas = read_tsv(job.input.dilemmas, empty_as_na=True)
ids = select(dilemmas[["dilemma_id"]], job.wildcards.shard, job.params.n_shards)["dilemma_id"]
cand, ref = read_tsv(job.input.cand, empty_as_na=True), read_tsv(job.input.ref, empty_as_na=True)
t0 = time.perf_counter()
embedder = load_embeddings(job.params.embeddings)
client = open_client(job)
out = match_shard(client, embedder, dilemmas, cand, ref, ids, job.wildcards.comparison, settings, job.seed)
counts = match_counts(out)
job.write_table(out, job.output[0], client=client, seed=job.seed, prompt_templates=prompt_hashes(), counts=counts,
                extra={"wall_seconds": round(time.perf_counter() - t0, 2)})
job.log.info("pairs decided: %d identical (match, no judge call), %d rejected by the prefilter, %d judged "
             "(%d matches, %d invalid); prefilter audit: %d skipped pairs judged for the record, %d matches",
             counts["identical"], counts["skipped_by_prefilter"], counts["judged"], counts["judge_matches"],
             counts["invalid"], counts["audited"], counts["audit_matches"])
job.log.info("%s %s", counts, client.stats)
