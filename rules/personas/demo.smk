# personas: SYNTHETIC demo inputs, written under resources/demo/generated/personas/
# (the demo corpus as PDFs, a seeded respondent file in Johnson's raw layout).


rule personas_demo_pdf:
    """Render the project's demo text of a country to PDF (synthetic demo corpus; the sidecar says so)."""
    input:
        personas_demo_text,
    output:
        f"{PERSONAS_DEMO}/corpus/{{country}}/{{country}}_demo.pdf",
    log:
        "logs/personas/demo_pdf/{country}.log",
    localrule: True
    conda:
        "../../envs/retrieval.yaml"
    resources:
        mem_mb=attempt_scaled(500),
        runtime=attempt_scaled(5),
    script:
        "../../scripts/personas/demo_pdf.py"


rule personas_demo_johnson:
    """SYNTHETIC responses in Johnson's raw IPIP-NEO layout (demo ground truth, seeded)."""
    input:
        key=personas_human_key,
    output:
        dat=f"{PERSONAS_DEMO}/human/{{form}}_SYNTHETIC.dat",
        means=f"{PERSONAS_DEMO}/human/{{form}}_SYNTHETIC_means.tsv",
    log:
        "logs/personas/demo_johnson/{form}.log",
    localrule: True
    conda:
        "../../envs/retrieval.yaml"
    resources:
        mem_mb=attempt_scaled(1000),
        runtime=attempt_scaled(5),
    params:
        seed=conf("seed"),
        respondents=personas_pairs("personas.human.synthetic_n"),
        johnson=personas_countries_field(
            "johnson", PERSONAS_CFG["human"]["synthetic_n"]
        ),
        country_width=personas_form_country_width,
        stored_reversed=conf("personas.human.stored_reversed"),
    script:
        "../../scripts/personas/demo_johnson.py"
