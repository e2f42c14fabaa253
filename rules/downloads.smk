# The one download rule: every public source file of every study (config
# `downloads`), fetched by URL at its pinned revision and checked against its
# sha256.  Studies read resources/downloads/<key> through their input paths.


rule download_file:
    """Fetch one `downloads` entry into resources/downloads/ (revision and sha256 checked)."""
    output:
        data=protected("resources/downloads/{path}"),
        source="resources/downloads/{path}.source.json",
    log:
        "logs/downloads/{path}.log",
    wildcard_constraints:
        path=regex_of(list(config["downloads"])),
    localrule: True
    conda:
        "../envs/stats.yaml"
    resources:
        mem_mb=attempt_scaled(1000),
        runtime=attempt_scaled(60),
    params:
        entry=download_entry,
    script:
        "../scripts/downloads/download_file.py"
