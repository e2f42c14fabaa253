# monopolet: dilemma sections, full-form dilemmas, answers, solutions and
# matching.  Model stages are sharded ({shard}); rule monopolet_gather joins.


rule monopolet_sections:
    """Sentences, 3-sentence chunks, prize segment, summary-to-chunk mapping (embeddings + LLM check), sections."""
    input:
        transcript="results/monopolet/transcripts/{episode}.speakers.tsv",
        summaries="results/monopolet/episodes/summaries.tsv",
        weights=mono_mapping_weights,
    output:
        sections="results/monopolet/sections/{episode}.tsv",
        chunks="results/monopolet/sections/{episode}.chunks.tsv",
    log:
        "logs/monopolet/sections/{episode}.log",
    benchmark:
        "benchmarks/monopolet/sections/{episode}.tsv"
    conda:
        env_of_model(MONO["mapping"]["model"])
    threads: config["resources"]["cpus"]
    resources:
        mem_mb=mem_of_model(MONO["mapping"]["model"]),
        runtime=config["resources"]["runtime"],
        gpu=gpu_of_model(MONO["mapping"]["model"]),
    params:
        model=MONO["mapping"]["model"],
        mapping=MONO["mapping"],
        prize=MONO["prize"],
        chunk_sentences=MONO["chunk_sentences"],
        embeddings=MONO["embeddings"],
    script:
        "../../scripts/monopolet/sections.py"


rule monopolet_gather_sections:
    """All episodes' sections; the longest fraction dropped (configurable)."""
    input:
        mono_section_files,
    output:
        "results/monopolet/sections/sections.tsv",
    log:
        "logs/monopolet/gather_sections.log",
    localrule: True
    conda:
        "../../envs/stats.yaml"
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        drop_longest_fraction=MONO["drop_longest_fraction"],
    script:
        "../../scripts/monopolet/gather_sections.py"


rule monopolet_dilemmas:
    """Full-form dilemma from each section (structured output)."""
    input:
        sections="results/monopolet/sections/sections.tsv",
        weights=mono_extraction_weights,
    output:
        "results/monopolet/dilemmas/shards/dilemmas/{shard}.tsv",
    log:
        "logs/monopolet/dilemmas/{shard}.log",
    benchmark:
        "benchmarks/monopolet/dilemmas/{shard}.tsv"
    conda:
        env_of_model(MONO["extraction"]["model"])
    threads: config["resources"]["cpus"]
    resources:
        mem_mb=mem_of_model(MONO["extraction"]["model"]),
        runtime=config["resources"]["runtime"],
        gpu=gpu_of_model(MONO["extraction"]["model"]),
    params:
        model=MONO["extraction"]["model"],
        settings=MONO["extraction"],
        n_shards=MONO["shards"],
    script:
        "../../scripts/monopolet/dilemmas.py"


rule monopolet_answers:
    """Each answer model gets the dilemma and a natural request for advice."""
    input:
        dilemmas="results/monopolet/dilemmas/dilemmas.tsv",
        weights=model_weights,
    output:
        "results/monopolet/answers/shards/{model}/{shard}.tsv",
    log:
        "logs/monopolet/answers/{model}/{shard}.log",
    benchmark:
        "benchmarks/monopolet/answers/{model}/{shard}.tsv"
    conda:
        model_env
    threads: config["resources"]["cpus"]
    resources:
        mem_mb=model_mem,
        runtime=config["resources"]["runtime"],
        gpu=model_gpu,
    params:
        settings=MONO["answers"],
        n_shards=MONO["shards"],
    script:
        "../../scripts/monopolet/answers.py"


rule monopolet_solutions:
    """Advised / not-advised solutions of an agent (panel or model) plus the post-processing pass."""
    input:
        dilemmas="results/monopolet/dilemmas/dilemmas.tsv",
        responses=mono_agent_responses,
        weights=mono_extraction_weights,
    output:
        "results/monopolet/solutions/shards/{agent}/{shard}.tsv",
    log:
        "logs/monopolet/solutions/{agent}/{shard}.log",
    benchmark:
        "benchmarks/monopolet/solutions/{agent}/{shard}.tsv"
    conda:
        env_of_model(MONO["extraction"]["model"])
    threads: config["resources"]["cpus"]
    resources:
        mem_mb=mem_of_model(MONO["extraction"]["model"]),
        runtime=config["resources"]["runtime"],
        gpu=gpu_of_model(MONO["extraction"]["model"]),
    params:
        model=MONO["extraction"]["model"],
        settings=MONO["extraction"],
        n_shards=MONO["shards"],
    script:
        "../../scripts/monopolet/solutions.py"


rule monopolet_match:
    """Embedding prefilter, then the LLM judge's component matching rules per candidate/reference pair."""
    input:
        unpack(mono_comparison_solutions),
        dilemmas="results/monopolet/dilemmas/dilemmas.tsv",
        weights=mono_judge_weights,
    output:
        "results/monopolet/matching/shards/{comparison}/{shard}.tsv",
    log:
        "logs/monopolet/match/{comparison}/{shard}.log",
    benchmark:
        "benchmarks/monopolet/match/{comparison}/{shard}.tsv"
    conda:
        env_of_model(MONO["judge"]["model"])
    threads: config["resources"]["cpus"]
    resources:
        mem_mb=mem_of_model(MONO["judge"]["model"]),
        runtime=config["resources"]["runtime"],
        gpu=gpu_of_model(MONO["judge"]["model"]),
    params:
        model=MONO["judge"]["model"],
        settings=MONO["judge"],
        embeddings=MONO["embeddings"],
        n_shards=MONO["shards"],
    script:
        "../../scripts/monopolet/match.py"


rule monopolet_gather:
    """Concatenate the shards of a model stage (sidecar sums their counts)."""
    input:
        mono_gather_inputs,
    output:
        "results/monopolet/{stage}/{name}.tsv",
    log:
        "logs/monopolet/gather/{stage}/{name}.log",
    wildcard_constraints:
        name=r"[^/]+",
    localrule: True
    conda:
        "../../envs/stats.yaml"
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../../scripts/monopolet/gather.py"
