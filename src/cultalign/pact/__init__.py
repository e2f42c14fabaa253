"""PACT: personal-preference vs cultural-norm trade-offs (Borah, Augenstein, Mihalcea 2026).

Stages: ingest (NormAd-ETI, CultureAtlas) -> construct (LLM filter, preference,
rewrite, judge) -> expand (country relation x demographics, configurations)
-> model behaviour (generation + log-prob decisions) -> analyses -> human
study (Prolific export) -> human-model alignment -> figures and claims.
"""
