# CulturalPersonas (Dey et al. 2025; seed 003, issue 4).
# corpus PDFs -> FAISS index per country -> norms -> scenarios -> questions
# (self-checked) -> audit; instruments + human IPIP-NEO ground truth ->
# MCS / OEG per model x instrument x country x priming -> W/KS tables, figures, claims.


include: "common.smk"
include: "generate.smk"
include: "eval.smk"
include: "release.smk"


STUDY_TARGETS["personas"] = (
    [f"results/personas/tables/{t}.tsv" for t in P_TABLES]
    + [f"results/personas/figures/{f}.png" for f in P_FIGURES]
    + [f"results/personas/audit/generated_{P_GEN}/summary.tsv"]
    + [f"results/personas/human/{f}_counts.tsv" for f in P_FORMS]
    + (
        ["results/personas/tables/trait_native_scores.tsv"]
        if P_TRAIT_INSTRUMENTS
        else []
    )
    + (
        ["results/personas/audit/release/summary.tsv"]
        if PCFG["release"]["path"]
        else []
    )
)


rule personas_table1:
    """Paper Table 1: pairwise country distances on the human data."""
    input:
        "results/personas/tables/table1_human_pairwise.tsv",
    conda:
        "../../envs/stats.yaml"


rule personas_table2:
    """Paper Tables 2, 6 and 7: relative gains in W of CulturalPersonas."""
    input:
        "results/personas/tables/table2_gains.tsv",
        "results/personas/tables/table6_mcs_trait_gains.tsv",
        "results/personas/tables/table7_oeg_trait_gains.tsv",
    conda:
        "../../envs/stats.yaml"


rule personas_table3:
    """Paper Table 3: type-token ratio of OEG responses."""
    input:
        "results/personas/tables/table3_ttr.tsv",
    conda:
        "../../envs/stats.yaml"


rule personas_figures:
    """Paper Figures 3, 5, 6, 10, 11 and 12."""
    input:
        [f"results/personas/figures/{f}.png" for f in P_FIGURES],
    conda:
        "../../envs/stats.yaml"


rule personas_audit:
    """Data audit of the generated release (and the external one when configured)."""
    input:
        [f"results/personas/audit/generated_{P_GEN}/summary.tsv"]
        + (
            ["results/personas/audit/release/summary.tsv"]
            if PCFG["release"]["path"]
            else []
        ),
    conda:
        "../../envs/stats.yaml"
