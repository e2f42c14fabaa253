import json
from pathlib import Path

from cultalign.download import download
from cultalign.smk import setup_logging

log = setup_logging(snakemake)
p = snakemake.params
key = f"pact.sources.{snakemake.wildcards.source}"
if not p.url:
    raise ValueError(f"{key}: no url configured and no local path set")
url = p.url.format(revision=p.revision or "main")
log.info("downloading %s", url)
got = download(url, snakemake.output.data, p.sha256, revision=p.revision)
if not p.sha256:
    log.warning("%s.sha256 is not set; the downloaded file has sha256 %s: pin it in the config", key, got.sha256)
if got.served_commit:
    log.info("server served commit %s", got.served_commit)
    if not p.revision or len(p.revision) < 40:
        log.warning("%s.revision=%r: pin the full commit %s", key, p.revision, got.served_commit)
Path(snakemake.output.checksum).write_text(f"{got.sha256}  {Path(got.path).name}\n")
Path(snakemake.output.source).write_text(json.dumps(
    {"url": url, "revision": p.revision, "served_commit": got.served_commit, "sha256": got.sha256}, indent=1) + "\n")
