import pandas as pd

from cultalign.pact.human import agreement, norm_personal_gap
from cultalign.provenance import write_sidecar
from cultalign.smk import setup_logging

log = setup_logging(snakemake)
cfg = snakemake.config
h = pd.read_csv(snakemake.input.responses, sep="\t", keep_default_na=False)
synthetic = h["synthetic"].astype(str).str.startswith("SYNTHETIC").all()
gaps = norm_personal_gap(h)
mg = cfg["pact"]["human"]["min_group_size"]
agree = pd.concat([agreement(h, by, mg) for by in ("relation", "participant_age", "participant_gender",
                                                    "participant_country")], ignore_index=True)
for t in (gaps, agree):
    t["data"] = "synthetic" if synthetic else "human"
gaps.to_csv(snakemake.output.gaps, sep="\t", index=False)
agree.to_csv(snakemake.output.agreement, sep="\t", index=False)
for o in snakemake.output:
    write_sidecar(o, config=cfg, seed=cfg["seed"], counts={"valid": len(h), "invalid": 0},
                  extra={"synthetic_human_data": bool(synthetic)})
