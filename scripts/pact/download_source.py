import hashlib
import shutil
import urllib.request
from pathlib import Path

from cultalign.smk import setup_logging

log = setup_logging(snakemake)
p = snakemake.params
if not p.url:
    raise ValueError(f"pact.sources.{snakemake.wildcards.source}: no url configured and no local path set")
url = p.url.format(revision=p.revision or "main")
out = Path(snakemake.output.data)
tmp = out.with_suffix(out.suffix + ".part")
log.info("downloading %s", url)
with urllib.request.urlopen(url, timeout=120) as r, open(tmp, "wb") as f:
    shutil.copyfileobj(r, f)
digest = hashlib.sha256(tmp.read_bytes()).hexdigest()
if p.sha256 and digest != p.sha256:
    tmp.unlink()
    raise ValueError(f"{url}: sha256 {digest} != expected {p.sha256} (pact.sources.{snakemake.wildcards.source}.sha256)")
if not p.sha256:
    log.warning("no sha256 configured for %s; downloaded file has sha256 %s: pin it in the config", url, digest)
tmp.rename(out)
Path(snakemake.output.checksum).write_text(f"{digest}  {out.name}\n")
