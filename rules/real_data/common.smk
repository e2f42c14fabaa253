# Real-data claims: config shortcuts and input functions (rules in main.smk).


def real_data_input(key):
    """Input function: the file or folder a real-data config key names; unset fails naming the key."""

    def fn(wildcards):
        from snakemake.exceptions import WorkflowError

        value = config_at(key)
        if not value:
            raise WorkflowError(
                f"config key '{key}' is not set: the real-data claims need it "
                "(config/real-data.yaml sets it to ../shared/data/...)"
            )
        return value

    fn.__name__ = f"real_data_{key.replace('.', '_')}"
    return fn


def real_data_personas_release(wildcards):
    """Input function: the CulturalPersonas release files the counts read (every configured country,
    the norms JSON, the baselines), downloaded or in a local copy (rules/personas/common.smk).
    """
    from cultalign.personas.release import RELEASE_BASELINES

    real_data_input("personas.release.path")(wildcards)  # unset: fails naming the key
    return personas_release_paths(
        personas_country_codes(PERSONAS_CFG["countries"]),
        True,
        [*RELEASE_BASELINES, "datasets/baselines/big5chat.csv"],
    )


def config_at(key):
    value = config
    for part in key.split("."):
        value = (value or {}).get(part)
    return value


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
