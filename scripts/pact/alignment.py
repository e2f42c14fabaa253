import pandas as pd

from cultalign.pact.alignment import (
    SIGN_NOTE,
    alignment_metrics,
    alignment_summary,
    model_norm_personal_gap,
    persona_country_effects,
    persona_effects,
    position_audit,
)
from cultalign.provenance import write_sidecar
from cultalign.smk import setup_logging

log = setup_logging(snakemake)
cfg = snakemake.config
h = pd.read_csv(snakemake.input.responses, sep="\t", keep_default_na=False)
m = pd.concat([pd.read_csv(p, sep="\t", keep_default_na=False, na_values=[""]) for p in snakemake.input.surveys],
              ignore_index=True)
m["position_audit"] = m["position_audit"].astype(str) == "True"
m["culture_is_A"] = m["culture_is_A"].astype(str) == "True"
synthetic = h["synthetic"].astype(str).str.startswith("SYNTHETIC").all()
metrics = alignment_metrics(m, h)
main_format = cfg["pact"]["alignment"]["prompt_formats"][0]
summary = alignment_summary(metrics, main_format)
audit = position_audit(m)
model_gap = model_norm_personal_gap(m)
persona = persona_effects(metrics, model_gap, main_format)
persona_country = persona_country_effects(m, h, main_format)
for t in (metrics, summary, audit, model_gap, persona, persona_country):
    t["human_data"] = "synthetic" if synthetic else "human"
metrics.to_csv(snakemake.output.metrics, sep="\t", index=False)
summary.to_csv(snakemake.output.summary, sep="\t", index=False)
audit.to_csv(snakemake.output.audit, sep="\t", index=False)
model_gap.to_csv(snakemake.output.model_gap, sep="\t", index=False)
persona.to_csv(snakemake.output.persona, sep="\t", index=False)
persona_country.to_csv(snakemake.output.persona_country, sep="\t", index=False)
counts = {"valid": int(m["follow_culture"].notna().sum()), "invalid": int(m["follow_culture"].isna().sum())}
for o in snakemake.output:
    write_sidecar(o, config=cfg, seed=cfg["seed"], counts=counts,
                  extra={"signed_gap_convention": SIGN_NOTE, "synthetic_human_data": bool(synthetic),
                         "metric_names": {"rate_mae_item": "mean_i |m_i - h_i| (item-level MAE)",
                                          "rate_gap_aggregate": "|mean m - mean h| per frame (the paper's reported MAE)"}})
