# Planning: paper scale on paper.  Requests, prompt and generated tokens of every model rule
# and the GPU-hours they imply (an estimate; cultalign.planning, docs/benchmarks.md).


rule planning_gpu_hours:
    """Requests, prompt and generated tokens and GPU-hours of every model rule of the config, before running it."""
    input:
        tokenizer=planning_tokenizer,
    output:
        table="results/planning/gpu_hours.tsv",
        totals="results/planning/gpu_hours_totals.tsv",
    log:
        "logs/planning/gpu_hours.log",
    conda:
        "../envs/llm.yaml"
    resources:
        mem_mb=attempt_scaled(2000),
        runtime=attempt_scaled(10),
    params:
        **study_sections(),
        studies=conf("studies"),
        models=conf("models"),
        default_model=default_model(),
        planning=conf("planning"),
    script:
        "../scripts/planning/gpu_hours.py"
