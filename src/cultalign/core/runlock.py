"""One Snakemake run at a time in a working directory: the workflow's own lock.

Snakemake 9.27.1 keeps its locks as files in ``.snakemake/locks`` and, when
any run in the directory ends (even one with "Nothing to be done"), removes
the whole folder (``FilePersistence._delete_locks``: ``shutil.rmtree`` of the
lock folder, not just its own files).  A run started after that is not
refused and executes the same jobs as a run still going.

So the workflow takes its own lock when it starts executing jobs (``onstart``
in ``rules/common.smk``; dry runs and jobs Snakemake spawns on cluster nodes,
which run with ``--no-hooks``, take none): an exclusive ``flock`` on
``.snakemake/cultalign-run.lock``, held by the Snakemake process until it
exits (the kernel releases it when the process dies, ``kill -9`` included, so
a killed run never leaves a stale lock).  A second run refuses to start,
naming the run that holds the lock.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import sys
import time
from pathlib import Path

LOCK_FILE = Path(".snakemake") / "cultalign-run.lock"
_held: dict[str, int] = {}  # lock path -> open descriptor, for the life of the process


class RunLockError(RuntimeError):
    """Another Snakemake run is executing jobs in this working directory."""


def hold_run_lock(workdir: str | os.PathLike = ".") -> Path:
    """Take the run lock of ``workdir`` for the life of this process, or raise :class:`RunLockError`."""
    path = (Path(workdir) / LOCK_FILE).resolve()
    if str(path) in _held:
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = _describe(os.read(fd, 4096))
        os.close(fd)
        raise RunLockError(
            f"another Snakemake run is executing jobs in {path.parent.parent} ({holder}); it holds {path}. "
            "Wait for it to finish, then start this run again (or work in a separate copy of the checkout). "
            "Snakemake's own lock does not catch this: any run that ends removes .snakemake/locks."
        ) from None
    except OSError as e:  # a filesystem without flock (some network mounts): warn, run unguarded
        os.close(fd)
        print(f"WARNING: cannot lock {path} ({e}); this run does not guard against a second run in "
              "the same directory: start one run at a time", file=sys.stderr)
        return path
    os.ftruncate(fd, 0)
    os.write(fd, json.dumps({"pid": os.getpid(), "host": socket.gethostname(),
                             "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                             "command": " ".join(sys.argv)}).encode())
    _held[str(path)] = fd
    return path


def _describe(raw: bytes) -> str:
    try:
        h = json.loads(raw.decode())
        return f"pid {h['pid']} on {h['host']}, started {h['started']}: {h['command']}"
    except (ValueError, KeyError, UnicodeDecodeError):
        return "holder unknown"
