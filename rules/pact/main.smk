# PACT study: Borah, Augenstein, Mihalcea 2026, "Whose Norms?".
# sources -> construct (LLM filter, preference, rewrite, judge) -> expand
# -> behaviour (LLM, sharded) -> analyses; human study (Prolific export,
# SYNTHETIC in the demo) -> alignment (LLM survey) -> R regressions
# -> figures 3-7, appendix figures, tables, claims.  Logic: src/cultalign/pact/.


include: "common.smk"
include: "demo.smk"
include: "sources.smk"
include: "construct.smk"
include: "behaviour.smk"
include: "human.smk"
include: "alignment.smk"
include: "figures.smk"
include: "targets.smk"
include: "real_data.smk"
