# Claims scorecard and report.


report: "../report/workflow.rst"


rule claims:
    """Paper value vs reproduced value for every number in config/claims.yaml."""
    input:
        claims=config["claims"],
        results=claims_inputs,
    output:
        report(
            "results/claims.csv",
            caption="../report/claims.rst",
            category="Claims scorecard",
        ),
    params:
        studies=STUDIES,
        scale=config["scale"],
    log:
        "logs/report/claims.log",
    conda:
        "../envs/stats.yaml"
    resources:
        mem_mb=1000,
        runtime=5,
    localrule: True
    script:
        "../scripts/report/claims.py"
