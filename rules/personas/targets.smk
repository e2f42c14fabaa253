# personas: named targets for the paper's tables and figures, and the study's targets (rule all).


STUDY_TARGETS["personas"] = (
    [
        f"results/personas/tables/{t}.tsv"
        for t in PERSONAS_TABLES + PERSONAS_HUMAN_TABLES + PERSONAS_OEG_TABLES
    ]
    + [f"results/personas/figures/{f}.png" for f in PERSONAS_FIGURES]
    + PERSONAS_AUDITS
    + [f"results/personas/human/{f}_counts.tsv" for f in PERSONAS_FORMS]
    + (
        ["results/personas/tables/trait_native_scores.tsv"]
        if PERSONAS_TRAIT_INSTRUMENTS
        else []
    )
)


rule personas_table1:
    """Paper Table 1: pairwise country distances on the human data."""
    input:
        "results/personas/tables/table1_human_pairwise.tsv",


rule personas_table2:
    """Paper Tables 2, 6 and 7: relative gains in W of CulturalPersonas."""
    input:
        "results/personas/tables/table2_gains.tsv",
        "results/personas/tables/table6_mcs_trait_gains.tsv",
        "results/personas/tables/table7_oeg_trait_gains.tsv",


rule personas_table3:
    """Paper Table 3: type-token ratio of OEG responses."""
    input:
        "results/personas/tables/table3_ttr.tsv",


rule personas_figures:
    """Paper Figures 3, 5, 6, 10, 11 and 12."""
    input:
        [f"results/personas/figures/{f}.png" for f in PERSONAS_FIGURES],


rule personas_audit:
    """Data audit of the generated release (and the external one when configured)."""
    input:
        PERSONAS_AUDITS,


rule personas_release_eval:
    """Real-data run on the published release (not part of CI; needs personas.release.path)."""
    input:
        "results/personas/release/trait_scores.tsv",
        "results/personas/release/run_summary.tsv",
        "results/personas/release/run_totals.tsv",
