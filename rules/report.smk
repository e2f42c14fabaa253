# Claims scorecard and report.


report: "../report/workflow.rst"


rule claims:
    """Paper value vs reproduced value for every number in config/claims.yaml."""
    input:
        claims=config["claims"],
        results=claims_inputs,
    output:
        scorecard=report(
            "results/claims.csv",
            caption="../report/claims.rst",
            category="Claims scorecard",
        ),
        consistency=report(
            "results/claims_consistency.csv",
            caption="../report/claims_consistency.rst",
            category="Claims scorecard",
            subcategory="The papers' own consistency",
        ),
    log:
        "logs/report/claims.log",
    localrule: True
    conda:
        "../envs/stats.yaml"
    resources:
        mem_mb=attempt_scaled(1000),
        runtime=attempt_scaled(5),
    params:
        studies=conf("studies"),
        scale=conf("scale"),
        needs_set=claim_needs_set,
    script:
        "../scripts/report/claims.py"
