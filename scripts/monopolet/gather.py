import json
from pathlib import Path

from cultalign.monopolet.shards import gather
from cultalign.provenance import write_sidecar
from cultalign.smk import setup_logging

log = setup_logging(snakemake)
df, counts = gather(list(snakemake.input))
df.to_csv(snakemake.output[0], sep="\t", index=False)
sides = [Path(str(p) + ".provenance.json") for p in snakemake.input]
sides = [json.loads(p.read_text()) for p in sides if p.exists()]
extra = {"shards": len(snakemake.input)}
if sides:
    extra.update({k: sides[0][k] for k in ("model", "prompt_templates", "seed") if k in sides[0]})
    if all("requests" in s for s in sides):  # request counters summed over the shards
        extra["requests"] = {k: sum(s["requests"][k] for s in sides) for k in sides[0]["requests"]}
write_sidecar(snakemake.output[0], config=snakemake.config, counts=counts, extra=extra)
log.info("%d rows from %d shards; counts %s", len(df), len(snakemake.input), counts)
