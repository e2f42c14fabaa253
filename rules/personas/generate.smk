# personas: retrieval index, norm -> scenario -> question generation, audits, instruments,
# human ground truth.


rule personas_index:
    """Extract, chunk and embed a country's PDFs; persist the FAISS index."""
    input:
        personas_corpus_pdfs,
    output:
        index=directory("results/personas/index/{country}"),
        chunks="results/personas/index/{country}.chunks.tsv",
    log:
        "logs/personas/index/{country}.log",
    benchmark:
        "benchmarks/personas/index/{country}.tsv"
    conda:
        "../../envs/retrieval.yaml"
    resources:
        mem_mb=attempt_scaled(3000),
        runtime=attempt_scaled(30),
    params:
        chunk_size=conf("personas.corpus.chunk_size"),
        chunk_overlap=conf("personas.corpus.chunk_overlap"),
        embedding_model=conf("personas.corpus.embedding_model"),
        embedder=personas_embedder,
    script:
        "../../scripts/personas/build_index.py"


rule personas_norms:
    """Norms per country from retrieved context (RAG), self-checked."""
    input:
        weights=model_weights,
        index="results/personas/index/{country}",
    output:
        "results/personas/generated/{model}/norms/{country}.tsv",
    log:
        "logs/personas/norms/{model}/{country}.log",
    benchmark:
        "benchmarks/personas/norms/{model}/{country}.tsv"
    conda:
        model_env
    threads: config["resources"]["cpus"]
    resources:
        mem_mb=model_mem,
        runtime=model_runtime,
        gpu=model_gpu,
    params:
        llm=llm_of_wildcard,
        seed=conf("seed"),
        country_name=personas_country_conf("name"),
        n_norms=conf("personas.generation.n_norms"),
        topics=conf("personas.generation.topics"),
        temperature=conf("personas.generation.temperature"),
        max_new_tokens=conf("personas.generation.max_new_tokens.norm"),
        max_chars=conf("personas.generation.max_chars.norm"),
        bound_fields=conf("personas.generation.bound_fields"),
        max_regenerations=conf("personas.generation.max_regenerations"),
        check_threshold=conf("personas.generation.check_threshold"),
        top_k=conf("personas.corpus.top_k"),
        embedding_model=conf("personas.corpus.embedding_model"),
        embedder=personas_embedder,
    script:
        "../../scripts/personas/norms.py"


rule personas_scenarios:
    """Scenarios per norm, self-checked."""
    input:
        weights=model_weights,
        norms="results/personas/generated/{model}/norms/{country}.tsv",
    output:
        "results/personas/generated/{model}/scenarios/{country}.tsv",
    log:
        "logs/personas/scenarios/{model}/{country}.log",
    benchmark:
        "benchmarks/personas/scenarios/{model}/{country}.tsv"
    conda:
        model_env
    threads: config["resources"]["cpus"]
    resources:
        mem_mb=model_mem,
        runtime=model_runtime,
        gpu=model_gpu,
    params:
        llm=llm_of_wildcard,
        seed=conf("seed"),
        country_name=personas_country_conf("name"),
        n_scenarios=conf("personas.generation.n_scenarios"),
        norms_with_scenarios=conf("personas.generation.norms_with_scenarios"),
        temperature=conf("personas.generation.temperature"),
        max_new_tokens=conf("personas.generation.max_new_tokens.scenario"),
        max_chars=conf("personas.generation.max_chars.scenario"),
        bound_fields=conf("personas.generation.bound_fields"),
        max_regenerations=conf("personas.generation.max_regenerations"),
        check_threshold=conf("personas.generation.check_threshold"),
    script:
        "../../scripts/personas/scenarios.py"


rule personas_questions:
    """One question per trait with five graded answers per scenario, self-checked."""
    input:
        weights=model_weights,
        scenarios="results/personas/generated/{model}/scenarios/{country}.tsv",
    output:
        "results/personas/generated/{model}/questions/{country}.tsv",
    log:
        "logs/personas/questions/{model}/{country}.log",
    benchmark:
        "benchmarks/personas/questions/{model}/{country}.tsv"
    conda:
        model_env
    threads: config["resources"]["cpus"]
    resources:
        mem_mb=model_mem,
        runtime=model_runtime,
        gpu=model_gpu,
    params:
        llm=llm_of_wildcard,
        seed=conf("seed"),
        country_name=personas_country_conf("name"),
        temperature=conf("personas.generation.temperature"),
        max_new_tokens=conf("personas.generation.max_new_tokens.question"),
        question_chars=conf("personas.generation.max_chars.question"),
        answer_chars=conf("personas.generation.max_chars.answer"),
        bound_fields=conf("personas.generation.bound_fields"),
        max_regenerations=conf("personas.generation.max_regenerations"),
        check_threshold=conf("personas.generation.check_threshold"),
    script:
        "../../scripts/personas/questions.py"


rule personas_export_release:
    """Write the generated data in the published release layout (for the audit)."""
    input:
        norms=personas_generated("norms"),
        scenarios=personas_generated("scenarios"),
        questions=personas_generated("questions"),
    output:
        directory("results/personas/generated/{model}/release"),
    log:
        "logs/personas/export_release/{model}.log",
    localrule: True
    conda:
        "../../envs/stats.yaml"
    resources:
        mem_mb=attempt_scaled(1000),
        runtime=attempt_scaled(5),
    params:
        names=personas_countries_field("name", PERSONAS_COUNTRIES),
        codes=personas_countries_field("release_code", PERSONAS_COUNTRIES),
    script:
        "../../scripts/personas/export_release.py"


rule personas_audit_generated:
    """Audit the generated release."""
    input:
        release="results/personas/generated/{model}/release",
    output:
        findings="results/personas/audit/generated_{model}/findings.tsv",
        findings_page=paper_report(
            "results/personas/audit/generated_{model}/findings.html",
            caption="../../report/personas/audit.rst",
            category="CulturalPersonas",
            section=REPORT_CHECKS,
            no=5,
            paper="Section 3 (audit)",
            shows="Audit of the data generated by {model}",
        ),
        summary="results/personas/audit/generated_{model}/summary.tsv",
    log:
        "logs/personas/audit_generated/{model}.log",
    conda:
        "../../envs/retrieval.yaml"
    resources:
        mem_mb=attempt_scaled(2000),
        runtime=attempt_scaled(15),
    params:
        countries=conf("personas.run_countries"),
        names=personas_countries_field("name", PERSONAS_COUNTRIES),
        codes=personas_countries_field("release_code", PERSONAS_COUNTRIES),
        n_norms=conf("personas.generation.n_norms"),
        n_scenarios=conf("personas.generation.n_scenarios"),
        near_duplicate_jaccard=conf("personas.audit.near_duplicate_jaccard"),
        embedding_model=conf("personas.corpus.embedding_model"),
        embedding_batch_size=conf("personas.audit.embedding_batch_size"),
        cpu_linear=conf("personas.audit.cpu_linear"),
    script:
        "../../scripts/personas/audit_generated.py"


rule personas_audit_release:
    """Audit the external (published) CulturalPersonas release."""
    input:
        release=personas_release_input,
    output:
        findings="results/personas/audit/release/findings.tsv",
        findings_page=paper_report(
            "results/personas/audit/release/findings.html",
            caption="../../report/personas/audit.rst",
            category="CulturalPersonas",
            section=REPORT_CHECKS,
            no=6,
            paper="Section 3 (audit)",
            shows="Audit of the published release",
        ),
        summary="results/personas/audit/release/summary.tsv",
    log:
        "logs/personas/audit_release.log",
    conda:
        "../../envs/retrieval.yaml"
    # the ordering check embeds 15,000 answer texts: torch uses the job's threads
    threads: config["resources"]["cpus"]
    resources:
        mem_mb=attempt_scaled(3000),
        runtime=attempt_scaled(30),
    params:
        countries=personas_value(list(PERSONAS_CFG["countries"])),
        names=personas_countries_field("name", PERSONAS_CFG["countries"]),
        codes=personas_countries_field("release_code", PERSONAS_CFG["countries"]),
        expect_norms=conf("personas.audit.expect_norms"),
        expect_scenarios=conf("personas.audit.expect_scenarios"),
        expect_questions=conf("personas.audit.expect_questions"),
        near_duplicate_jaccard=conf("personas.audit.near_duplicate_jaccard"),
        embedding_model=conf("personas.corpus.embedding_model"),
        embedding_batch_size=conf("personas.audit.embedding_batch_size"),
        cpu_linear=conf("personas.audit.cpu_linear"),
        ipip120_key=conf("personas.release.ipip120_key"),
        ipip300_key=conf("personas.release.ipip300_key"),
    script:
        "../../scripts/personas/audit_release.py"


rule personas_instrument:
    """A baseline instrument as an item table with its scoring scheme."""
    input:
        personas_instrument_file,
    output:
        "results/personas/instruments/{instrument}.tsv",
    log:
        "logs/personas/instrument/{instrument}.log",
    localrule: True
    conda:
        "../../envs/retrieval.yaml"
    resources:
        mem_mb=attempt_scaled(500),
        runtime=attempt_scaled(5),
    params:
        format=personas_instrument_conf("format"),
        max_items=personas_instrument_conf("max_items"),
        bfi_key=personas_bfi_key,
    script:
        "../../scripts/personas/instrument.py"


rule personas_cp_items:
    """CulturalPersonas questions of a country (generated or released) as items."""
    input:
        unpack(personas_cp_inputs),
    output:
        "results/personas/instruments/cp/{country}.tsv",
    log:
        "logs/personas/cp_items/{country}.log",
    localrule: True
    conda:
        "../../envs/retrieval.yaml"
    resources:
        mem_mb=attempt_scaled(500),
        runtime=attempt_scaled(5),
    params:
        max_items=conf("personas.cp_max_items"),
        release_code=personas_cp_release_code,
    script:
        "../../scripts/personas/cp_items.py"


rule personas_human_scores:
    """Per-country trait scores (correct keying) and sample sizes from a Johnson file."""
    input:
        raw=personas_human_raw,
        key=personas_human_key,
    output:
        scores="results/personas/human/{form}_scores.tsv",
        counts="results/personas/human/{form}_counts.tsv",
        counts_page=paper_report(
            "results/personas/human/{form}_counts.html",
            caption="../../report/personas/human_counts.rst",
            category="CulturalPersonas",
            section=REPORT_CHECKS,
            no=2,
            paper="Section 4 (human data)",
            shows="Human sample sizes per country ({form})",
        ),
    log:
        "logs/personas/human_scores/{form}.log",
    conda:
        "../../envs/retrieval.yaml"
    resources:
        mem_mb=attempt_scaled(4000),
        runtime=attempt_scaled(30),
    params:
        country_width=personas_form_country_width,
        stored_reversed=conf("personas.human.stored_reversed"),
        countries=personas_value(list(PERSONAS_CFG["countries"])),
        johnson=personas_countries_field("johnson", PERSONAS_CFG["countries"]),
        paper_n=personas_countries_field("paper_n", PERSONAS_CFG["countries"]),
    script:
        "../../scripts/personas/human_scores.py"
