# Danish norms study ("Naturalistic measure of social norms alignment", Sara og
# Monopolet): rule files in the order every study uses.


include: "common.smk"
include: "demo.smk"
include: "audio.smk"
include: "text.smk"
include: "analysis.smk"
include: "targets.smk"
