import pandas as pd

from cultalign.monopolet.annotation import mapping_agreement, matching_errors
from cultalign.provenance import file_hash, write_sidecar
from cultalign.smk import setup_logging

log = setup_logging(snakemake)
p = snakemake.params
parts = []
if p.mapping:
    parts.append(mapping_agreement(p.mapping))
if p.matching:
    parts.append(matching_errors(p.matching))
cols = ["table", "quantity", "class", "value"]
t = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=cols)
t.to_csv(snakemake.output[0], sep="\t", index=False)
write_sidecar(snakemake.output[0], config=snakemake.config, counts={"rows": len(t)},
              extra={"annotation_files": {f: file_hash(f) for f in snakemake.input}})
log.info("\n%s", t.to_string())
