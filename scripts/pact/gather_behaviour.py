import pandas as pd

from cultalign.pact.analysis import decisions_table
from cultalign.provenance import write_sidecar
from cultalign.smk import setup_logging

log = setup_logging(snakemake)
cfg = snakemake.config
parts = []
for path in snakemake.input.shards:
    model = path.split("/")[-2]
    d = pd.read_csv(path, sep="\t", keep_default_na=False, na_values=[""])
    gen_cols = ["condition_id", "valid", "decision", "attempts", "raw_output"]
    lp_cols = [c for c in ("p_follow_culture", "letter_mass", "logprob_A", "logprob_B") if c in d.columns]
    conds = d.drop(columns=gen_cols[1:] + lp_cols)
    lp = d[["condition_id", *lp_cols]] if lp_cols else None
    parts.append(decisions_table(conds, d[gen_cols], model, cfg["models"][model].get("kind", "instruct"), lp))
out = pd.concat(parts, ignore_index=True)
out.to_csv(snakemake.output.table, sep="\t", index=False)
write_sidecar(snakemake.output.table, config=cfg, seed=cfg["seed"],
              counts={"valid": int((out["decision"] != "UNKNOWN").sum()), "invalid": int((out["decision"] == "UNKNOWN").sum())})
log.info("decisions: %d rows", len(out))
