from cultalign.models import SamplingParams
from cultalign.monopolet.answers import generate_answers
from cultalign.monopolet.prompts import template_hashes
from cultalign.monopolet.shards import read_tsv, select
from cultalign.provenance import write_sidecar
from cultalign.smk import client_for, setup_logging

log = setup_logging(snakemake)
p = snakemake.params
cfg = snakemake.config
dilemmas = select(read_tsv(snakemake.input.dilemmas), snakemake.wildcards.shard, p.n_shards)
dilemmas["dilemma"] = dilemmas["dilemma"].fillna("")
client = client_for(snakemake, snakemake.wildcards.model)
params = SamplingParams(temperature=p.settings["temperature"], max_new_tokens=p.settings["max_new_tokens"],
                        seed=cfg["seed"])
out = generate_answers(client, dilemmas, params, max_attempts=cfg["retry"]["max_attempts"])
out.to_csv(snakemake.output[0], sep="\t", index=False)
counts = {"answers": len(out), "valid": int(out["valid"].sum()), "invalid": int((~out["valid"]).sum()),
          "dilemmas_without_valid_text": int((~dilemmas["valid"].astype(bool)).sum())}
write_sidecar(snakemake.output[0], config=cfg, client=client, seed=cfg["seed"],
              prompt_templates=template_hashes("ask_advice"), counts=counts)
log.info("%s %s", counts, client.stats)
