"""Downloads of public sources, checked against a pinned sha256 (paper scale).

The one download rule, ``download_file`` (rules/downloads.smk), fetches each
``config.downloads`` entry into ``resources/downloads/<path>`` through
:func:`fetch_entry`, which records what was fetched in ``<path>.source.json``.
:func:`download`:

* a checksum mismatch fails naming the file, the URL and both hashes, and
  leaves no partial file behind;
* with no sha256 configured the file is kept, its sha256 is returned and the
  caller warns so that it can be pinned;
* Hugging Face ``resolve`` URLs answer with the commit they served in the
  ``X-Repo-Commit`` header: when a revision is configured, the served commit
  must start with it (a short hash or a full one), so a moved branch or a
  mistyped revision fails instead of silently giving other data.  The served
  commit is returned so the caller records it.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import tempfile
import urllib.request
from dataclasses import dataclass
from pathlib import Path

HEX = re.compile(r"^[0-9a-f]{7,40}$")


@dataclass(frozen=True)
class Downloaded:
    path: Path
    url: str
    sha256: str
    served_commit: str | None  # X-Repo-Commit of a Hugging Face resolve URL


def sha256_of(path: str | Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def check_served_commit(url: str, revision: str | None, served: str | None) -> None:
    """A commit-hash revision must match the commit the server says it served."""
    if not revision or not HEX.match(revision.lower()):
        return  # a branch or tag name, or no pin: nothing to compare
    if served is None:
        return  # not a server that reports commits (plain HTTP mirror)
    if not served.lower().startswith(revision.lower()):
        raise ValueError(f"{url}: configured revision {revision} but the server served commit {served}")


def download(url: str, dest: str | Path, sha256: str | None, timeout: float = 120,
             revision: str | None = None) -> Downloaded:
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.")
    try:
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(url, timeout=timeout) as resp:
            served = resp.headers.get("X-Repo-Commit")
            while block := resp.read(1 << 20):
                out.write(block)
        check_served_commit(url, revision, served)
        got = sha256_of(tmp)
        if sha256 and got != sha256:
            raise ValueError(f"{dest}: checksum mismatch for {url}: expected sha256 {sha256}, got {got}")
        os.replace(tmp, dest)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return Downloaded(path=dest, url=url, sha256=got, served_commit=served)


def fetch_entry(key: str, entry: dict, dest: str | Path, source_json: str | Path,
                log: logging.Logger | None = None) -> Downloaded:
    """Fetch one ``downloads`` entry (``url`` with ``{revision}`` replaced, ``revision``, ``sha256``)
    to ``dest`` and write ``source_json`` (url, revision, served commit, sha256).  Errors name ``key``."""
    log = log or logging.getLogger(__name__)
    url, revision, sha256 = entry.get("url") or "", entry.get("revision"), entry.get("sha256")
    if not url:
        raise ValueError(f"config key '{key}.url' is empty: no address to download from; set it, or point "
                         f"the study's input path at a local copy of the file")
    if "{revision}" in url:
        if not revision:
            raise ValueError(f"config key '{key}.url' contains {{revision}} but '{key}.revision' is not set")
        url = url.replace("{revision}", revision)
    log.info("downloading %s", url)
    got = download(url, dest, sha256, revision=revision)
    log.info("downloaded %s -> %s (sha256 %s)", got.url, got.path, got.sha256)
    if not sha256:
        log.warning("%s.sha256 is not set; the downloaded file has sha256 %s: pin it in the config", key, got.sha256)
    if got.served_commit:
        log.info("server served commit %s", got.served_commit)
        if not revision or len(revision) < 40:
            log.warning("%s.revision=%r: pin the full commit %s", key, revision, got.served_commit)
    Path(source_json).write_text(json.dumps(
        {"key": key, "url": url, "revision": revision, "served_commit": got.served_commit, "sha256": got.sha256},
        indent=1, sort_keys=True) + "\n")
    return got
