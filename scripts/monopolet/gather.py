import json
from pathlib import Path

from cultalign.monopolet.shards import gather
from cultalign.provenance import write_sidecar
from cultalign.smk import setup_logging

log = setup_logging(snakemake)
df, counts = gather(list(snakemake.input))
df.to_csv(snakemake.output[0], sep="\t", index=False)
first = Path(str(snakemake.input[0]) + ".provenance.json")
extra = {"shards": len(snakemake.input)}
if first.exists():
    src = json.loads(first.read_text())
    extra.update({k: src[k] for k in ("model", "prompt_templates", "seed") if k in src})
write_sidecar(snakemake.output[0], config=snakemake.config, counts=counts, extra=extra)
log.info("%d rows from %d shards; counts %s", len(df), len(snakemake.input), counts)
