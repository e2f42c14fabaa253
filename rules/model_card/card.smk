# The model card of my_model.name and the cost of its jobs (rules/model_card/common.smk).


rule model_card:
    """The card of my_model.name: each headline measure next to the papers' published values, a figure per measure."""
    input:
        unpack(model_card_inputs),
    output:
        [
            paper_report(
                f"{MY_MODEL_DIR}/{name}.png",
                caption="../../report/model_card_figure.rst",
                category="Model card",
                section=f"{MY_MODEL}",
                no=3 + i,
                paper="All three papers",
                shows=f"{name}: {MY_MODEL} vs the papers' models",
            )
            for i, name in enumerate(MY_MODEL_FIGURES)
        ],
        table=f"{MY_MODEL_DIR}/card.tsv",
        table_page=paper_report(
            f"{MY_MODEL_DIR}/card.html",
            caption="../../report/model_card_table.rst",
            category="Model card",
            section=f"{MY_MODEL}",
            no=2,
            paper="All three papers",
            shows=f"Headline measures of {MY_MODEL} and the published values",
        ),
        card=MY_MODEL_CARD,
        # the report's entry of the card: its figures named, not embedded (report/model_card.rst)
        report_page=paper_report(
            f"{MY_MODEL_DIR}/model_card_report.html",
            caption="../../report/model_card.rst",
            category="Model card",
            section=f"{MY_MODEL}",
            no=1,
            paper="All three papers",
            shows=f"Model card of {MY_MODEL}",
        ),
    log:
        f"logs/model_card/{MY_MODEL}.log",
    benchmark:
        f"benchmarks/model_card/{MY_MODEL}.tsv"
    conda:
        "../../envs/stats.yaml"
    resources:
        # at paper scale it reads the model's whole PACT behaviour table, as pact_gather_behaviour does
        mem_mb=attempt_scaled(16000),
        runtime=attempt_scaled(60),
    params:
        model=MY_MODEL,
        site_data_table=MY_MODEL_SITE_DATA,
        spec=model_card_spec(),
        skips=MY_MODEL_SKIPS,
        studies=MY_MODEL_STUDIES,
        figures=MY_MODEL_FIGURES,
        model_names=model_display_names(MY_MODEL_SHOWN),
        prompt_formats=conf("pact.alignment.prompt_formats"),
        item_unit=conf("pact.alignment.item_unit"),
        bootstrap=conf("pact.behaviour.bootstrap"),
        seed=conf("seed"),
    script:
        "../../scripts/report/model_card.py"


rule my_model_gpu_hours:
    """Cost first: the requests, tokens and GPU-hours my_model.name adds (planning_gpu_hours with and without it), before it runs."""
    input:
        tokenizer=planning_tokenizer,
    output:
        table=f"results/planning/models/{MY_MODEL}/gpu_hours.tsv",
        totals=f"results/planning/models/{MY_MODEL}/gpu_hours_totals.tsv",
    log:
        f"logs/planning/models/{MY_MODEL}.log",
    conda:
        "../../envs/llm.yaml"
    resources:
        mem_mb=attempt_scaled(2000),
        runtime=attempt_scaled(10),
    params:
        **study_sections(),
        model=MY_MODEL,
        skips=MY_MODEL_SKIPS,
        studies=conf("studies"),
        models=conf("models"),
        default_model=default_model(),
        planning=conf("planning"),
    script:
        "../../scripts/planning/my_model_gpu_hours.py"
