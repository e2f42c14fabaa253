# PACT demo inputs that the workflow writes itself (SYNTHETIC, seeded).


rule pact_demo_prolific:
    """SYNTHETIC Prolific-format export (seeded) for the demo human study; every row is labelled synthetic."""
    input:
        validated="results/pact/construct/normad_validated.tsv",
    output:
        export=PACT_DEMO_PROLIFIC,
    log:
        "logs/pact/demo_prolific.log",
    localrule: True
    conda:
        "../../envs/stats.yaml"
    resources:
        mem_mb=attempt_scaled(1000),
        runtime=attempt_scaled(5),
    params:
        max_scenarios=conf("pact.human.max_scenarios"),
        participant_countries=conf("pact.human.participant_countries"),
        participants_per_country=conf("pact.human.participants_per_country"),
        scenarios_per_participant=conf("pact.human.scenarios_per_participant"),
        attention_answer=conf("pact.human.attention_answer"),
        seed=conf("seed"),
    script:
        "../../scripts/pact/demo_prolific.py"
