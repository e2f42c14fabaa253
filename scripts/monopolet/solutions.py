import json

from cultalign.monopolet.extraction import ExtractionSettings, extract_solutions
from cultalign.monopolet.prompts import template_hashes
from cultalign.monopolet.shards import read_tsv, select
from cultalign.provenance import write_sidecar
from cultalign.smk import client_for, setup_logging

log = setup_logging(snakemake)
p = snakemake.params
cfg = snakemake.config
agent = snakemake.wildcards.agent
dilemmas = read_tsv(snakemake.input.dilemmas)
dilemmas = dilemmas[dilemmas["valid"].astype(bool)][["dilemma_id", "dilemma"]]
resp = read_tsv(snakemake.input.responses)
if agent == "panel":
    resp = resp[resp["status"] == "ok"][["dilemma_id", "section"]].rename(columns={"section": "response"})
    prompt = "extract_solutions_panel"
else:
    resp = resp[resp["valid"].astype(bool)][["dilemma_id", "answer"]].rename(columns={"answer": "response"})
    prompt = "extract_solutions_answer"
items = select(dilemmas.merge(resp, on="dilemma_id"), snakemake.wildcards.shard, p.n_shards)
client = client_for(snakemake, p.model)
sols, status = extract_solutions(client, items, prompt, ExtractionSettings.from_config(dict(p.settings)),
                                 cfg["seed"], max_attempts=cfg["retry"]["max_attempts"])
status.insert(1, "agent", agent)
status["solutions"] = [json.dumps(sols[sols["dilemma_id"] == d][["action", "stance", "negation_normalised"]]
                                  .to_dict("records"), ensure_ascii=False) for d in status["dilemma_id"]]
status.to_csv(snakemake.output[0], sep="\t", index=False)
counts = {"dilemmas": len(status), "valid": int(status["valid"].sum()) if len(status) else 0,
          "invalid": int((~status["valid"]).sum()) if len(status) else 0,
          "postprocess_invalid": int((status["postprocess_valid"] == False).sum()) if len(status) else 0,  # noqa: E712
          "solutions": len(sols), "negations_normalised": int(sols["negation_normalised"].sum())}
write_sidecar(snakemake.output[0], config=cfg, client=client, seed=cfg["seed"],
              prompt_templates=template_hashes(prompt, "postprocess_solutions"), counts=counts)
log.info("%s %s", counts, client.stats)
