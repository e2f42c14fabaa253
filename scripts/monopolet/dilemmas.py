from cultalign.monopolet.extraction import ExtractionSettings, extract_dilemmas
from cultalign.monopolet.prompts import template_hashes
from cultalign.monopolet.shards import read_tsv, select
from cultalign.provenance import write_sidecar
from cultalign.smk import client_for, setup_logging

log = setup_logging(snakemake)
p = snakemake.params
cfg = snakemake.config
sections = read_tsv(snakemake.input.sections)
sections = sections[sections["status"] == "ok"].reset_index(drop=True)
part = select(sections, snakemake.wildcards.shard, p.n_shards)
client = client_for(snakemake, p.model)
out = extract_dilemmas(client, part, ExtractionSettings.from_config(dict(p.settings)), cfg["seed"],
                       max_attempts=cfg["retry"]["max_attempts"])
out.to_csv(snakemake.output[0], sep="\t", index=False)
counts = {"dilemmas": len(out), "valid": int(out["valid"].sum()), "invalid": int((~out["valid"]).sum())}
write_sidecar(snakemake.output[0], config=cfg, client=client, seed=cfg["seed"],
              prompt_templates=template_hashes("extract_dilemma"), counts=counts)
log.info("%s %s", counts, client.stats)
