# Public sources fetched by URL with a pinned checksum (config `downloads`).


rule download_file:
    """Fetch one `downloads` entry into resources/downloads/ and verify its sha256."""
    output:
        "resources/downloads/{path}",
    log:
        "logs/downloads/{path}.log",
    wildcard_constraints:
        path=regex_of(list(config["downloads"])),
    localrule: True
    conda:
        "../envs/stats.yaml"
    resources:
        mem_mb=1000,
        runtime=30,
    params:
        url=download_url,
        sha256=download_sha256,
    script:
        "../scripts/downloads/download_file.py"
