# Real-data claims: input functions of rule real_data_claims (rules in main.smk; the real-data
# tables are made by rules/<study>/real_data.smk, real_data_input in rules/common.smk).


def claim_needs_set(wildcards):
    """Param: {config key a claim `needs`: whether the config sets it}."""
    from cultalign.claims import load_claims

    keys = {c["needs"] for c in load_claims(config["claims"]) if c.get("needs")}
    return {k: bool(config_at(k)) for k in sorted(keys)}


def real_data_derived_checks(wildcards):
    """Input function: the checks derived from the inventory of printed numbers (their failures go
    onto the errata page) when the config names the papers' texts; else none."""
    return (
        ["results/real_data/claims_derived.tsv"]
        if config_at("real_data.paper_texts")
        else []
    )


def real_data_statement_checks(wildcards):
    """Input function: the statements in words checked against their data (their failures go onto
    the errata page) when the config names the papers' texts; else none."""
    return (
        ["results/real_data/claims_statements.tsv"]
        if config_at("real_data.paper_texts")
        else []
    )


def real_data_statement_tables(wildcards):
    """Input function (rule claims_statements). The result tables its measures and datasets read
    that the real-data run makes (the others are not configured: their statements are undecided).
    """
    from cultalign.statements import load_lexicon, result_files

    made = set(real_data_claim_files(wildcards))
    return [
        f for f in result_files(load_lexicon(config["claims_statements"])) if f in made
    ]


def real_data_text_vs_code_results(wildcards):
    """Input function (rule real_data_text_vs_code). The result tables the disagreements' values read
    that the real-data run makes (a value of a model run is 'not made by this run' there).
    """
    from cultalign import text_vs_code as tvc

    made = set(real_data_claim_files(wildcards))
    return [f for f in tvc.result_files(_text_vs_code_loaded()) if f in made]


def real_data_claim_files(wildcards):
    """Result files of the real-data claims (those that `need` a config key)."""
    from cultalign.claims import claim_result_files, load_claims, on_real_data_scorecard

    claims = load_claims(config["claims"])
    needs_set = claim_needs_set(wildcards)
    files = claim_result_files(
        [c for c in claims if on_real_data_scorecard(c)], STUDIES, needs_set
    )
    # the authors' released data the checks read through paper('<id>') of a value_from claim
    sources = {
        c["value_from"]["result"]
        for c in claims
        if "value_from" in c and needs_set.get(c["needs"])
    }
    return sorted(set(files) | sources)
