# monopolet text stages: dilemma sections, full-form dilemmas, answers,
# solutions and matching.  Model stages are sharded ({shard}, contiguous
# slices: cultalign.core.shards); rule monopolet_gather joins the shards.


rule monopolet_sections:
    """Sentences, 3-sentence chunks, prize segment, summary-to-chunk mapping (embeddings + LLM check), sections."""
    input:
        transcript="results/monopolet/transcripts/{episode}.speakers.tsv",
        summaries="results/monopolet/episodes/summaries.tsv",
        weights=monopolet_mapping_weights,
        encoder=config_input("monopolet.embeddings.path"),
    output:
        sections="results/monopolet/sections/{episode}.tsv",
        chunks="results/monopolet/sections/{episode}.chunks.tsv",
    log:
        "logs/monopolet/sections/{episode}.log",
    benchmark:
        "benchmarks/monopolet/sections/{episode}.tsv"
    conda:
        env_of_model(MONOPOLET_MAPPING_MODEL)
    threads: config["resources"]["cpus"]
    resources:
        mem_mb=mem_of_model(MONOPOLET_MAPPING_MODEL),
        runtime=model_runtime,
        gpu=gpu_of_model(MONOPOLET_MAPPING_MODEL),
    params:
        llm=llm_of(MONOPOLET_MAPPING_MODEL),
        yes_threshold=conf("monopolet.mapping.yes_threshold"),
        fallback=conf("monopolet.mapping.fallback"),
        check=conf("monopolet.mapping.check"),
        max_new_tokens=conf("monopolet.mapping.max_new_tokens"),
        temperature=conf("monopolet.mapping.temperature"),
        prize=conf("monopolet.prize"),
        chunk_sentences=conf("monopolet.chunk_sentences"),
        embeddings=conf("monopolet.embeddings"),
    script:
        "../../scripts/monopolet/sections.py"


rule monopolet_gather_sections:
    """All episodes' sections; the longest fraction dropped (configurable)."""
    input:
        monopolet_section_files,
    output:
        "results/monopolet/sections/sections.tsv",
    log:
        "logs/monopolet/gather_sections.log",
    localrule: True
    conda:
        "../../envs/stats.yaml"
    resources:
        mem_mb=attempt_scaled(1000),
        runtime=attempt_scaled(5),
    params:
        drop_longest_fraction=conf("monopolet.drop_longest_fraction"),
    script:
        "../../scripts/monopolet/gather_sections.py"


rule monopolet_dilemmas:
    """Full-form dilemma from each section (structured output)."""
    input:
        sections="results/monopolet/sections/sections.tsv",
        weights=monopolet_dilemma_weights,
    output:
        "results/monopolet/dilemmas/shards/dilemmas/{shard}.tsv",
    log:
        "logs/monopolet/dilemmas/{shard}.log",
    benchmark:
        "benchmarks/monopolet/dilemmas/{shard}.tsv"
    conda:
        env_of_model(MONOPOLET_DILEMMA_MODEL)
    threads: config["resources"]["cpus"]
    resources:
        mem_mb=mem_of_model(MONOPOLET_DILEMMA_MODEL),
        runtime=model_runtime,
        gpu=gpu_of_model(MONOPOLET_DILEMMA_MODEL),
    params:
        llm=llm_of(MONOPOLET_DILEMMA_MODEL),
        temperature=conf("monopolet.extraction.temperature"),
        max_new_tokens=conf("monopolet.extraction.max_new_tokens"),
        max_dilemma_chars=conf("monopolet.extraction.max_dilemma_chars"),
        seed=conf("seed"),
        n_shards=conf("monopolet.shards"),
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
        runtime=model_runtime,
        gpu=model_gpu,
    params:
        llm=llm_of_wildcard,
        answers=monopolet_answer_settings,
        seed=conf("seed"),
        n_shards=conf("monopolet.shards"),
    script:
        "../../scripts/monopolet/answers.py"


rule monopolet_solutions:
    """Advised / not-advised solutions of an agent (panel or model) plus the post-processing pass."""
    input:
        dilemmas="results/monopolet/dilemmas/dilemmas.tsv",
        responses=monopolet_agent_responses,
        weights=monopolet_extraction_weights,
    output:
        "results/monopolet/solutions/shards/{agent}/{shard}.tsv",
    log:
        "logs/monopolet/solutions/{agent}/{shard}.log",
    benchmark:
        "benchmarks/monopolet/solutions/{agent}/{shard}.tsv"
    conda:
        env_of_model(MONOPOLET_EXTRACTION_MODEL)
    threads: config["resources"]["cpus"]
    resources:
        mem_mb=mem_of_model(MONOPOLET_EXTRACTION_MODEL),
        runtime=model_runtime,
        gpu=gpu_of_model(MONOPOLET_EXTRACTION_MODEL),
    params:
        llm=llm_of(MONOPOLET_EXTRACTION_MODEL),
        temperature=conf("monopolet.extraction.temperature"),
        max_new_tokens=conf("monopolet.extraction.max_new_tokens"),
        max_solutions=conf("monopolet.extraction.max_solutions"),
        max_action_chars=conf("monopolet.extraction.max_action_chars"),
        postprocess=conf("monopolet.extraction.postprocess"),
        seed=conf("seed"),
        n_shards=conf("monopolet.shards"),
    script:
        "../../scripts/monopolet/solutions.py"


rule monopolet_match:
    """Embedding prefilter, then the LLM judge's component matching rules per candidate/reference pair."""
    input:
        unpack(monopolet_comparison_solutions),
        dilemmas="results/monopolet/dilemmas/dilemmas.tsv",
        weights=monopolet_judge_weights,
        encoder=config_input("monopolet.embeddings.path"),
    output:
        "results/monopolet/matching/shards/{comparison}/{shard}.tsv",
    log:
        "logs/monopolet/match/{comparison}/{shard}.log",
    benchmark:
        "benchmarks/monopolet/match/{comparison}/{shard}.tsv"
    conda:
        env_of_model(MONOPOLET_JUDGE_MODEL)
    threads: config["resources"]["cpus"]
    resources:
        mem_mb=mem_of_model(MONOPOLET_JUDGE_MODEL),
        runtime=model_runtime,
        gpu=gpu_of_model(MONOPOLET_JUDGE_MODEL),
    params:
        llm=llm_of(MONOPOLET_JUDGE_MODEL),
        max_new_tokens=conf("monopolet.judge.max_new_tokens"),
        max_reason_chars=conf("monopolet.judge.max_reason_chars"),
        temperature=conf("monopolet.judge.temperature"),
        identical_shortcut=conf("monopolet.judge.identical_shortcut"),
        few_shot=conf("monopolet.judge.few_shot"),
        prefilter=conf("monopolet.judge.prefilter"),
        embeddings=conf("monopolet.embeddings"),
        seed=conf("seed"),
        n_shards=conf("monopolet.shards"),
    script:
        "../../scripts/monopolet/match.py"


rule monopolet_gather:
    """Concatenate the shards of a model stage (sidecar sums their counts)."""
    input:
        monopolet_gather_inputs,
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
        mem_mb=attempt_scaled(1000),
        runtime=attempt_scaled(5),
    script:
        "../../scripts/monopolet/gather.py"
