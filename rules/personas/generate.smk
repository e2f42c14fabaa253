# personas: corpus, index, generation, audit, instruments, human ground truth.


rule personas_demo_pdf:
    """Render the project's demo text of a country to PDF (synthetic demo corpus)."""
    input:
        personas_demo_text,
    output:
        "results/personas/corpus/{country}/{country}_demo.pdf",
    log:
        "logs/personas/demo_pdf/{country}.log",
    localrule: True
    conda:
        "../../envs/retrieval.yaml"
    resources:
        mem_mb=500,
        runtime=5,
    script:
        "../../scripts/personas/demo_pdf.py"


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
        mem_mb=3000,
        runtime=30,
    params:
        corpus=PCFG["corpus"],
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
        runtime=config["resources"]["runtime"],
        gpu=model_gpu,
    params:
        cfg=PCFG,
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
        runtime=config["resources"]["runtime"],
        gpu=model_gpu,
    params:
        cfg=PCFG,
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
        runtime=config["resources"]["runtime"],
        gpu=model_gpu,
    params:
        cfg=PCFG,
    script:
        "../../scripts/personas/questions.py"


rule personas_export_release:
    """Write the generated data in the published release layout (for the audit)."""
    input:
        norms=personas_generated_norms,
        scenarios=personas_generated_scenarios,
        questions=personas_generated_questions,
    output:
        directory("results/personas/generated/{model}/release"),
    log:
        "logs/personas/export_release/{model}.log",
    localrule: True
    conda:
        "../../envs/stats.yaml"
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        countries=PCFG["countries"],
    script:
        "../../scripts/personas/export_release.py"


rule personas_audit_generated:
    """Audit the generated release."""
    input:
        release="results/personas/generated/{model}/release",
    output:
        findings=report(
            "results/personas/audit/generated_{model}/findings.tsv",
            caption="../../report/personas/audit.rst",
            category="CulturalPersonas",
        ),
        summary="results/personas/audit/generated_{model}/summary.tsv",
    log:
        "logs/personas/audit_generated/{model}.log",
    conda:
        "../../envs/retrieval.yaml"
    resources:
        mem_mb=2000,
        runtime=15,
    params:
        cfg=PCFG,
        countries=P_COUNTRIES,
        external=False,
    script:
        "../../scripts/personas/audit.py"


rule personas_audit_release:
    """Audit the external (published) CulturalPersonas release."""
    input:
        release=personas_release_input,
    output:
        findings=report(
            "results/personas/audit/release/findings.tsv",
            caption="../../report/personas/audit.rst",
            category="CulturalPersonas",
        ),
        summary="results/personas/audit/release/summary.tsv",
    log:
        "logs/personas/audit_release.log",
    conda:
        "../../envs/retrieval.yaml"
    resources:
        mem_mb=3000,
        runtime=30,
    params:
        cfg=PCFG,
        countries=list(PCFG["countries"]),
        external=True,
    script:
        "../../scripts/personas/audit.py"


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
        mem_mb=500,
        runtime=5,
    params:
        cfg=PCFG,
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
        mem_mb=500,
        runtime=5,
    params:
        cfg=PCFG,
    script:
        "../../scripts/personas/cp_items.py"


rule personas_synthetic_johnson:
    """SYNTHETIC responses in Johnson's raw IPIP-NEO layout (demo ground truth, seeded)."""
    input:
        key=personas_human_key,
    output:
        dat="results/personas/human/raw/{form}_SYNTHETIC.dat",
        means="results/personas/human/raw/{form}_SYNTHETIC_means.tsv",
    log:
        "logs/personas/synthetic_johnson/{form}.log",
    localrule: True
    conda:
        "../../envs/retrieval.yaml"
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        cfg=PCFG,
        seed=config["seed"],
    script:
        "../../scripts/personas/synthetic_johnson.py"


rule personas_human_scores:
    """Per-country trait scores (correct keying) and sample sizes from a Johnson file."""
    input:
        raw=personas_human_raw,
        key=personas_human_key,
    output:
        scores="results/personas/human/{form}_scores.tsv",
        counts=report(
            "results/personas/human/{form}_counts.tsv",
            caption="../../report/personas/human_counts.rst",
            category="CulturalPersonas",
        ),
    log:
        "logs/personas/human_scores/{form}.log",
    conda:
        "../../envs/retrieval.yaml"
    resources:
        mem_mb=4000,
        runtime=30,
    params:
        cfg=PCFG,
    script:
        "../../scripts/personas/human_scores.py"
