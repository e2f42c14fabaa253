"""One Snakemake run at a time in a working directory: the workflow's own lock.

Snakemake 9.27.1 keeps its locks as files in ``.snakemake/locks`` and, when
any run in the directory ends (even one with "Nothing to be done"), removes
the whole folder (``FilePersistence._delete_locks``: ``shutil.rmtree`` of the
lock folder, not just its own files).  A run started after that is not
refused and executes the same jobs as a run still going.  And where Snakemake's
lock does refuse a second run, its message advises ``--unlock``, which is
harmful while the first run goes on.

So the workflow takes its own lock while the Snakefile is parsed, before
Snakemake locks the directory (``rules/common.smk``: every command of the main
Snakemake process that is not a dry run; jobs Snakemake spawns, on cluster
nodes or as local subprocesses, parse it in another mode and take none): an
exclusive ``flock`` on ``.snakemake/cultalign-run.lock``, held by the
Snakemake process until it exits (the kernel releases it when the process
dies, ``kill -9`` included, so a killed run never leaves a stale lock).  A
second run, ``snakemake --unlock`` included, is refused, naming the run that
holds the lock (pid, host, start, command) and saying when ``--unlock`` is
right.  Taking the lock when Snakemake's lock files are there means that they
are stale (their run was killed): a note says that ``--unlock`` is safe.
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
        raise RunLockError(refusal(path, holder)) from None
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
    stale = path.parent / "locks"
    if stale.is_dir() and any(stale.iterdir()):
        print(f"NOTE: {stale} holds Snakemake lock files, but no run of this workflow is going on in "
              f"{path.parent.parent} (its run lock {path} was free): they are left from a run that was "
              "killed.  If Snakemake says 'Directory cannot be locked', `snakemake --unlock` is safe now; "
              "then rerun with --rerun-incomplete.", file=sys.stderr)
    return path


def refusal(path: Path, holder: str) -> str:
    """The message that refuses a second run while the run ``holder`` holds the run lock ``path``."""
    return (
        f"another Snakemake run is executing jobs in {path.parent.parent} ({holder}); it holds {path}. "
        "Wait for it to finish, then start this run again (or work in a separate copy of the checkout); "
        "a dry run (-n) is allowed meanwhile. Do NOT run `snakemake --unlock` now: that run's locks are "
        "rightly held, and removing them would let another run execute the same jobs at the same time "
        "(this workflow refuses --unlock while a run holds its lock). `--unlock` is right only when "
        "Snakemake says 'Directory cannot be locked' and no run holds this lock: after a run was killed "
        "(kill -9, a lost terminal or node), which this workflow notes when it starts."
    )


def holder_of(workdir: str | os.PathLike = ".") -> str | None:
    """The run of this host that holds the run lock of ``workdir`` (pid, host, start, command), or
    None: for a dry run, which takes no lock, to say that a run is going on.  Reads the lock file
    and asks the kernel whether its pid lives; it never takes the lock, even for a moment."""
    path = (Path(workdir) / LOCK_FILE).resolve()
    if str(path) in _held:
        return None
    try:
        h = json.loads(path.read_text())
        pid = int(h["pid"])
        if h["host"] != socket.gethostname() or pid == os.getpid():
            return None
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:  # alive, another user's
        pass
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return _describe(path.read_bytes())


def _describe(raw: bytes) -> str:
    try:
        h = json.loads(raw.decode())
        return f"pid {h['pid']} on {h['host']}, started {h['started']}: {h['command']}"
    except (ValueError, KeyError, UnicodeDecodeError):
        return "holder unknown"
