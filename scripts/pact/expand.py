import pandas as pd

from cultalign.pact.expand import construction_counts, expand
from cultalign.provenance import write_sidecar
from cultalign.smk import setup_logging

log = setup_logging(snakemake)
cfg = snakemake.config
parts, per_source = [], {}
for path in snakemake.input.validated:
    v = pd.read_csv(path, sep="\t", keep_default_na=False)
    src = v["source"].iloc[0] if len(v) else path.split("/")[-1].split("_")[0]
    kept = v[v["kept"].astype(str) == "True"]
    per_source[src] = {"scenarios_constructed": len(v), "scenarios_validated": len(kept),
                       "scenarios_removed": len(v) - len(kept)}
    parts.append(kept)
counts_in = {}
for path in snakemake.input.source_counts:
    c = pd.read_csv(path, sep="\t")
    counts_in.update({(path, r.quantity): r.value for r in c.itertuples()})
scen = pd.concat(parts, ignore_index=True)
inst = expand(scen, cfg["seed"], cfg["pact"]["expansion"]["combinations_per_scenario"])
inst.to_csv(snakemake.output.instances, sep="\t", index=False)
counts = construction_counts(per_source, inst)
counts.to_csv(snakemake.output.counts, sep="\t", index=False)
for o in snakemake.output:
    write_sidecar(o, config=cfg, seed=cfg["seed"], counts={"instances": len(inst)})
log.info("construction counts %s", counts.to_dict("records"))
