import pandas as pd

from cultalign.pact.regression import by_question
from cultalign.provenance import write_sidecar
from cultalign.smk import setup_logging
from cultalign.stats.rglm import r_version

log = setup_logging(snakemake)
cfg = snakemake.config
rc = cfg["pact"]["regression"]
h = pd.read_csv(snakemake.input.responses, sep="\t", keep_default_na=False)
m = pd.concat([pd.read_csv(p, sep="\t", keep_default_na=False, na_values=[""]) for p in snakemake.input.surveys],
              ignore_index=True)
m = m[m["position_audit"].astype(str) != "True"].dropna(subset=["follow_culture"])
m["follow_culture"] = m["follow_culture"].astype(int)
human = by_question(h, rc["human_terms"], "human")
models = by_question(m, rc["model_terms"], "model")
human.to_csv(snakemake.output.human, sep="\t", index=False)
models.to_csv(snakemake.output.models, sep="\t", index=False)
for o in snakemake.output:
    write_sidecar(o, config=cfg, seed=cfg["seed"], counts={"valid": len(h) + len(m), "invalid": 0},
                  extra={"R": r_version(), "fit": "glm(binomial) + drop1(test='Chisq') + p.adjust('BH') via rpy2"})
