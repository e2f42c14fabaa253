# CulturalPersonas (Dey et al. 2025): can LLMs express personality across cultures?
# corpus PDFs -> FAISS index per country -> norms -> scenarios -> questions
# (self-checked) -> audit; instruments + human IPIP-NEO ground truth ->
# MCS / OEG per model x instrument x country x priming -> W/KS tables, figures, claims.
# The real-data run on the published release: release.smk.


include: "common.smk"
include: "demo.smk"
include: "generate.smk"
include: "eval.smk"
include: "release.smk"
include: "targets.smk"
include: "real_data.smk"
