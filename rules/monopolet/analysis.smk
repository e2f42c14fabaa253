# monopolet analysis stages: agreement metrics, response statistics, topics,
# dataset and validation tables, and Figures 5-8.


rule monopolet_agreement:
    """SAA, EAA and AVG per comparison (model vs panel by default) and per dilemma."""
    input:
        matchings=monopolet_matchings,
        solutions=expand(
            "results/monopolet/solutions/{agent}.tsv", agent=MONOPOLET_AGENTS
        ),
    output:
        summary="results/monopolet/tables/agreement.tsv",
        summary_page=paper_report(
            "results/monopolet/tables/agreement.html",
            caption="../../report/monopolet/agreement.rst",
            category="Monopolet",
            section=REPORT_MAIN,
            no=4,
            paper="Figure 5 (data)",
            shows="SAA, EAA and AVG per model",
        ),
        per_dilemma="results/monopolet/tables/agreement_per_dilemma.tsv",
    log:
        "logs/monopolet/agreement.log",
    localrule: True
    conda:
        "../../envs/stats.yaml"
    resources:
        mem_mb=attempt_scaled(1000),
        runtime=attempt_scaled(5),
    script:
        "../../scripts/monopolet/agreement.py"


rule monopolet_response_stats:
    """Numbers, question marks, modal verbs, hedges, you-pronouns, person mentions per NLTK word; word counts; answers cut at the token cap."""
    input:
        monopolet_answer_tables,
    output:
        per_model="results/monopolet/tables/response_stats.tsv",
        per_model_page=paper_report(
            "results/monopolet/tables/response_stats.html",
            caption="../../report/monopolet/response_stats.rst",
            category="Monopolet",
            section=REPORT_MAIN,
            no=7,
            paper="Figure 7 (data)",
            shows="Response statistics per model",
        ),
        per_answer="results/monopolet/tables/response_stats_per_answer.tsv",
    log:
        "logs/monopolet/response_stats.log",
    localrule: True
    conda:
        "../../envs/stats.yaml"
    resources:
        mem_mb=attempt_scaled(1000),
        runtime=attempt_scaled(5),
    params:
        words=conf("monopolet.response_stats.words"),
    script:
        "../../scripts/monopolet/response_stats.py"


rule monopolet_topics:
    """SensTopic topics of the full-form dilemmas with the local multilingual encoder."""
    input:
        dilemmas="results/monopolet/dilemmas/dilemmas.tsv",
        encoder=config_input("monopolet.topics.encoder.path"),
    output:
        doc_topics="results/monopolet/topics/doc_topics.tsv",
        topics="results/monopolet/topics/topics.tsv",
    log:
        "logs/monopolet/topics.log",
    benchmark:
        "benchmarks/monopolet/topics.tsv"
    conda:
        "../../envs/text.yaml"
    threads: config["resources"]["cpus"]
    resources:
        mem_mb=attempt_scaled(4000),
        runtime=attempt_scaled(30),
    params:
        n_components=conf("monopolet.topics.n_components"),
        min_df=conf("monopolet.topics.min_df"),
        stop_words=conf("monopolet.topics.stop_words"),
        encoder=conf("monopolet.topics.encoder"),
        keyphrases=conf("monopolet.topics.keyphrases"),
        seed=conf("seed"),
    script:
        "../../scripts/monopolet/topics.py"


rule monopolet_topic_names:
    """Appendix B: the naming model gives each topic a human-readable name from its keyphrases and terms."""
    input:
        topics="results/monopolet/topics/topics.tsv",
        weights=monopolet_naming_weights,
    output:
        "results/monopolet/topics/topic_names.tsv",
    log:
        "logs/monopolet/topic_names.log",
    benchmark:
        "benchmarks/monopolet/topic_names.tsv"
    conda:
        env_of_model(MONOPOLET_NAMING_MODEL)
    threads: config["resources"]["cpus"]
    resources:
        mem_mb=mem_of_model(MONOPOLET_NAMING_MODEL),
        runtime=model_runtime,
        gpu=gpu_of_model(MONOPOLET_NAMING_MODEL),
    params:
        llm=llm_of(MONOPOLET_NAMING_MODEL),
        max_new_tokens=conf("monopolet.topics.naming.max_new_tokens"),
        temperature=conf("monopolet.topics.naming.temperature"),
        max_name_chars=conf("monopolet.topics.naming.max_name_chars"),
        seed=conf("seed"),
    script:
        "../../scripts/monopolet/topic_names.py"


rule monopolet_dataset_stats:
    """Dataset statistics (Table 1)."""
    input:
        episodes="results/monopolet/episodes/episodes.tsv",
        discarded="results/monopolet/episodes/discarded.tsv",
        sections="results/monopolet/sections/sections.tsv",
        dilemmas="results/monopolet/dilemmas/dilemmas.tsv",
        panel="results/monopolet/solutions/panel.tsv",
    output:
        table="results/monopolet/tables/dataset_stats.tsv",
        table_page=paper_report(
            "results/monopolet/tables/dataset_stats.html",
            caption="../../report/monopolet/dataset_stats.rst",
            category="Monopolet",
            section=REPORT_MAIN,
            no=2,
            paper="Table 1",
            shows="Dataset statistics",
        ),
    log:
        "logs/monopolet/dataset_stats.log",
    localrule: True
    conda:
        "../../envs/stats.yaml"
    resources:
        mem_mb=attempt_scaled(1000),
        runtime=attempt_scaled(5),
    script:
        "../../scripts/monopolet/dataset_stats.py"


rule monopolet_audio_quality:
    """Transcription real-time factor per episode; speaker purity against the demo scripts' turns."""
    input:
        segments=monopolet_segments,
        turns=monopolet_turns,
        reference=monopolet_demo_turns,
    output:
        table="results/monopolet/tables/audio_quality.tsv",
        table_page=paper_report(
            "results/monopolet/tables/audio_quality.html",
            caption="../../report/monopolet/audio_quality.rst",
            category="Monopolet",
            section=REPORT_CHECKS,
            no=1,
            paper="Section 4.2 (check)",
            shows="Transcription speed and diarization accuracy",
        ),
    log:
        "logs/monopolet/audio_quality.log",
    localrule: True
    conda:
        "../../envs/audio.yaml"
    resources:
        mem_mb=attempt_scaled(1000),
        runtime=attempt_scaled(5),
    script:
        "../../scripts/monopolet/audio_quality.py"


rule monopolet_annotation_agreement:
    """Appendix A validation: Cohen's kappa and precision/recall (Table 2), dilemma issues (Table 3), matching error rate (A.4)."""
    input:
        monopolet_annotation_inputs,
    output:
        table="results/monopolet/tables/annotation_agreement.tsv",
        table_page=paper_report(
            "results/monopolet/tables/annotation_agreement.html",
            caption="../../report/monopolet/annotation_agreement.rst",
            category="Monopolet",
            section=REPORT_APPENDIX,
            no=1,
            paper="Table 2 (appendix A.1, A.4)",
            shows="Annotation agreement and matching error rate",
        ),
    log:
        "logs/monopolet/annotation_agreement.log",
    localrule: True
    conda:
        "../../envs/stats.yaml"
    resources:
        mem_mb=attempt_scaled(1000),
        runtime=attempt_scaled(5),
    params:
        mapping=conf("monopolet.annotations.mapping"),
        matching=conf("monopolet.annotations.matching"),
        dilemmas=conf("monopolet.annotations.dilemmas"),
    script:
        "../../scripts/monopolet/annotation_agreement.py"


rule monopolet_plot_figure5:
    """Figure 5: EAA, SAA and AVG per comparison."""
    input:
        "results/monopolet/tables/agreement.tsv",
    output:
        paper_report(
            "results/monopolet/figures/figure5.png",
            caption="../../report/monopolet/figure5.rst",
            category="Monopolet",
            section=REPORT_MAIN,
            no=3,
            paper="Figure 5",
            shows="EAA, SAA and AVG per model",
        ),
    log:
        "logs/monopolet/plot_figure5.log",
    localrule: True
    conda:
        "../../envs/stats.yaml"
    resources:
        mem_mb=attempt_scaled(1000),
        runtime=attempt_scaled(5),
    params:
        model_names=model_display_names(MONOPOLET_ANSWER_MODELS),
        kind="figure5",
        scale=conf("scale"),
    script:
        "../../scripts/monopolet/plot.py"


rule monopolet_plot_figure6:
    """Figure 6: words per answer."""
    input:
        "results/monopolet/tables/response_stats_per_answer.tsv",
    output:
        paper_report(
            "results/monopolet/figures/figure6.png",
            caption="../../report/monopolet/figure6.rst",
            category="Monopolet",
            section=REPORT_MAIN,
            no=5,
            paper="Figure 6",
            shows="Words per answer",
        ),
    log:
        "logs/monopolet/plot_figure6.log",
    localrule: True
    conda:
        "../../envs/stats.yaml"
    resources:
        mem_mb=attempt_scaled(1000),
        runtime=attempt_scaled(5),
    params:
        model_names=model_display_names(MONOPOLET_ANSWER_MODELS),
        kind="figure6",
    script:
        "../../scripts/monopolet/plot.py"


rule monopolet_plot_figure7:
    """Figure 7: entities per word in the answers."""
    input:
        "results/monopolet/tables/response_stats.tsv",
    output:
        paper_report(
            "results/monopolet/figures/figure7.png",
            caption="../../report/monopolet/figure7.rst",
            category="Monopolet",
            section=REPORT_MAIN,
            no=6,
            paper="Figure 7",
            shows="Entities in the answers",
        ),
    log:
        "logs/monopolet/plot_figure7.log",
    localrule: True
    conda:
        "../../envs/stats.yaml"
    resources:
        mem_mb=attempt_scaled(1000),
        runtime=attempt_scaled(5),
    params:
        model_names=model_display_names(MONOPOLET_ANSWER_MODELS),
        kind="figure7",
    script:
        "../../scripts/monopolet/plot.py"


rule monopolet_plot_figure8:
    """Figure 8: AVG per comparison and topic, weighted by the dilemmas' topic weights."""
    input:
        per_dilemma="results/monopolet/tables/agreement_per_dilemma.tsv",
        summary="results/monopolet/tables/agreement.tsv",
        doc_topics="results/monopolet/topics/doc_topics.tsv",
        topics="results/monopolet/topics/topic_names.tsv",
    output:
        figure=paper_report(
            "results/monopolet/figures/figure8.png",
            caption="../../report/monopolet/figure8.rst",
            category="Monopolet",
            section=REPORT_MAIN,
            no=8,
            paper="Figure 8",
            shows="Weighted AVG per model and topic",
        ),
        table="results/monopolet/tables/topic_scores.tsv",
    log:
        "logs/monopolet/plot_figure8.log",
    localrule: True
    conda:
        "../../envs/stats.yaml"
    resources:
        mem_mb=attempt_scaled(1000),
        runtime=attempt_scaled(5),
    params:
        model_names=model_display_names(MONOPOLET_ANSWER_MODELS),
    script:
        "../../scripts/monopolet/figure8.py"


rule monopolet_eaa_grid:
    """Appendix D Figure 9: EAA over intersection ratio, stance agreement and output length (the paper's grid)."""
    output:
        figure=paper_report(
            "results/monopolet/figures/figure9.png",
            caption="../../report/monopolet/figure9.rst",
            category="Monopolet",
            section=REPORT_APPENDIX,
            no=3,
            paper="Figure 9 (appendix D)",
            shows="EAA over its parameter grid",
        ),
        table="results/monopolet/tables/eaa_grid.tsv",
    log:
        "logs/monopolet/eaa_grid.log",
    localrule: True
    conda:
        "../../envs/stats.yaml"
    resources:
        mem_mb=attempt_scaled(1000),
        runtime=attempt_scaled(5),
    params:
        grid=conf("monopolet.eaa_grid"),
    script:
        "../../scripts/monopolet/eaa_grid.py"


rule monopolet_topic_map:
    """Figure 3: t-SNE map of the dilemmas' topic proportions and the topic distribution."""
    input:
        doc_topics="results/monopolet/topics/doc_topics.tsv",
        topics="results/monopolet/topics/topic_names.tsv",
    output:
        figure=paper_report(
            "results/monopolet/figures/figure3.png",
            caption="../../report/monopolet/figure3.rst",
            category="Monopolet",
            section=REPORT_MAIN,
            no=1,
            paper="Figure 3",
            shows="Topic map of the dilemmas",
        ),
        table="results/monopolet/topics/topic_map.tsv",
    log:
        "logs/monopolet/topic_map.log",
    localrule: True
    conda:
        "../../envs/text.yaml"
    resources:
        mem_mb=attempt_scaled(1000),
        runtime=attempt_scaled(5),
    params:
        perplexity=conf("monopolet.topics.tsne_perplexity"),
        seed=conf("seed"),
    script:
        "../../scripts/monopolet/topic_map.py"


rule monopolet_annotation_samples:
    """Appendix A annotation samples (A.1 mapping for Table 2, A.2 dilemmas for Table 3, A.3 solutions for Table 4, A.4 matching)."""
    input:
        dilemmas="results/monopolet/dilemmas/dilemmas.tsv",
        sections="results/monopolet/sections/sections.tsv",
        chunks=monopolet_chunk_files,
        panel="results/monopolet/solutions/panel.tsv",
        matchings=monopolet_matchings,
    output:
        mapping="results/monopolet/annotation/mapping_sample.tsv",
        dilemmas="results/monopolet/annotation/dilemmas_sample.tsv",
        dilemmas_page=paper_report(
            "results/monopolet/annotation/dilemmas_sample.html",
            caption="../../report/monopolet/annotation_samples.rst",
            category="Monopolet",
            section=REPORT_APPENDIX,
            no=2,
            paper="Tables 2-4 (appendix A.1-A.3)",
            shows="Annotation samples",
        ),
        solutions="results/monopolet/annotation/solutions_sample.tsv",
        matching="results/monopolet/annotation/matching_sample.tsv",
    log:
        "logs/monopolet/annotation_samples.log",
    localrule: True
    conda:
        "../../envs/stats.yaml"
    resources:
        mem_mb=attempt_scaled(1000),
        runtime=attempt_scaled(5),
    params:
        samples=conf("monopolet.annotation_samples"),
        seed=conf("seed"),
    script:
        "../../scripts/monopolet/annotation_samples.py"
