import shutil
import tempfile
from pathlib import Path

from cultalign.audio.whisper_model import ChecksumError, convert_transformers, sha256_file
from cultalign.models.prepare import download_hub
from cultalign.smk import setup_logging

log = setup_logging(snakemake)
p = snakemake.params
with tempfile.TemporaryDirectory() as tmp:
    src = download_hub(p.hub_id, p.revision, Path(tmp) / "hf")
    convert_transformers(src, snakemake.output[0], quantization=p.quantization)
if p.sha256:
    got = sha256_file(Path(snakemake.output[0]) / "model.bin")
    if got != p.sha256:
        shutil.rmtree(snakemake.output[0])
        raise ChecksumError(f"converted model.bin sha256 {got} != expected {p.sha256}")
log.info("converted %s@%s -> %s", p.hub_id, p.revision, snakemake.output[0])
