# Claims scorecard and report.


report: "../report/workflow.rst"


rule claims:
    """Paper value vs reproduced value for every number in config/claims.yaml."""
    input:
        claims=config["claims"],
        results=claims_inputs,
    output:
        table="results/claims.csv",
        table_page=paper_report(
            "results/claims.html",
            caption="../report/claims.rst",
            category="Claims scorecard",
            section="Claims",
            no=1,
            paper="All three papers",
            shows="Paper value vs reproduced value",
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
    script:
        "../scripts/report/claims.py"
