# cultalign: three studies of how LLMs handle culture, end to end.
#   embedded default (CPU, demo inputs):  snakemake --cores 2
#   paper scale on SLURM:                 snakemake --profile slurm --configfile config/paper.yaml
# See README.md for the rule DAG and the map from paper tables/figures to targets.
from snakemake.utils import min_version

min_version("9.19")  # the SLURM profile is read as profile.yaml since 9.19


configfile: "config/config.yaml"


include: "rules/common.smk"
include: "rules/models.smk"
include: "rules/downloads.smk"
include: "rules/pact/main.smk"
include: "rules/personas/main.smk"
include: "rules/monopolet/main.smk"
include: "rules/real_data/main.smk"
include: "rules/report.smk"
include: "rules/preflight.smk"
include: "rules/planning.smk"
include: "rules/model_card/main.smk"


rule all:
    default_target: True
    input:
        all_targets,


# after every rule is defined (rules/common.smk)
add_code_params()
add_synthetic_marks()
