"""Downloads of public sources, checked against a pinned sha256 (paper scale).

Rule ``download_file`` (rules/downloads.smk) fetches ``config.downloads``
entries into ``resources/downloads/<path>``; a checksum mismatch fails naming
the file, the URL and both hashes, and leaves no partial file behind.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import urllib.request
from pathlib import Path


def sha256_of(path: str | Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def download(url: str, dest: str | Path, sha256: str | None, timeout: float = 120) -> Path:
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.")
    try:
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(url, timeout=timeout) as resp:
            while block := resp.read(1 << 20):
                out.write(block)
        got = sha256_of(tmp)
        if sha256 and got != sha256:
            raise ValueError(f"{dest}: checksum mismatch for {url}: expected sha256 {sha256}, got {got}")
        os.replace(tmp, dest)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return dest
