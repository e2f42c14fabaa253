import pandas as pd

from cultalign.monopolet.response_stats import per_answer, per_model
from cultalign.monopolet.shards import read_tsv
from cultalign.provenance import write_sidecar
from cultalign.smk import setup_logging

log = setup_logging(snakemake)
answers = pd.concat([read_tsv(p) for p in snakemake.input], ignore_index=True)
valid = answers[answers["valid"].astype(bool)]
pa = per_answer(valid)
pm = per_model(pa)
pm.to_csv(snakemake.output.per_model, sep="\t", index=False)
pa.to_csv(snakemake.output.per_answer, sep="\t", index=False)
c = {"valid": len(valid), "invalid": int(len(answers) - len(valid))}
for out in snakemake.output:
    write_sidecar(out, config=snakemake.config, counts=c)
log.info("\n%s", pm.to_string())
