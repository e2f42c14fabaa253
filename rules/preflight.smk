# Preflight: every external input of the active config (cultalign.inputs), before a run.


rule preflight:
    """List every external input of the config (key, path or URL, pinned revision / sha256, the rule that makes it, present, synthetic) to results/preflight.tsv and print it."""
    output:
        "results/preflight.tsv",
    log:
        "logs/report/preflight.log",
    localrule: True
    conda:
        "../envs/stats.yaml"
    resources:
        mem_mb=attempt_scaled(1000),
        runtime=attempt_scaled(5),
    params:
        # presence included: the table is rewritten whenever an input appears or goes
        inputs=canonical([i.row() for i in EXTERNAL_INPUTS]),
    script:
        "../scripts/report/preflight.py"
