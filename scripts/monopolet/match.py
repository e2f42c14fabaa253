import time

from cultalign.monopolet.embeddings import load_embeddings
from cultalign.monopolet.matching import (JudgeSettings, candidate_pairs, decision_counts, judge_pairs, prefilter,
                                          prompt_hashes)
from cultalign.monopolet.shards import read_tsv, select
from cultalign.monopolet.solutions_io import explode
from cultalign.provenance import write_sidecar
from cultalign.smk import client_for, setup_logging

log = setup_logging(snakemake)
p = snakemake.params
cfg = snakemake.config
settings = JudgeSettings.from_config(dict(p.settings))
dilemmas = read_tsv(snakemake.input.dilemmas)
ids = select(dilemmas[["dilemma_id"]], snakemake.wildcards.shard, p.n_shards)["dilemma_id"]
cand = explode(read_tsv(snakemake.input.cand))
ref = explode(read_tsv(snakemake.input.ref))
pairs = candidate_pairs(cand[cand["dilemma_id"].isin(ids)], ref[ref["dilemma_id"].isin(ids)])
t0 = time.perf_counter()
pairs = prefilter(pairs, load_embeddings(dict(p.embeddings)), settings.prefilter)
client = client_for(snakemake, p.model)
out = judge_pairs(client, pairs, dict(zip(dilemmas["dilemma_id"], dilemmas["dilemma"].fillna(""))), settings,
                  cfg["seed"], max_attempts=cfg["retry"]["max_attempts"])
out.insert(0, "comparison", snakemake.wildcards.comparison)
out.to_csv(snakemake.output[0], sep="\t", index=False)
decided = decision_counts(out)  # identical / prefilter_reject / judge
counts = {"pairs": len(out), "judged": decided["judge"], "identical": decided["identical"],
          "skipped_by_prefilter": decided["prefilter_reject"],
          "valid": int((out["valid"] & out["judged"]).sum()), "invalid": int((~out["valid"]).sum()),
          "matches": int(out["match"].sum()), "judge_matches": int(out.loc[out["judged"], "match"].sum())}
write_sidecar(snakemake.output[0], config=cfg, client=client, seed=cfg["seed"],
              prompt_templates=prompt_hashes(), counts=counts,
              extra={"wall_seconds": round(time.perf_counter() - t0, 2)})
log.info("pairs decided: %d identical (match, no judge call), %d rejected by the prefilter, %d judged "
         "(%d matches, %d invalid)", decided["identical"], decided["prefilter_reject"], decided["judge"],
         counts["judge_matches"], counts["invalid"])
log.info("%s %s", counts, client.stats)
