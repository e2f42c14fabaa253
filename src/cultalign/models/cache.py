"""Durable request cache, safe under concurrent SLURM jobs.

Layout: ``<cache_dir>/<model-slug>/<writer>.sqlite``.  Every job writes only
its own file (``writer`` is the rule name plus wildcards, so a job killed and
restarted reopens the same file), and reads every file of the model's folder.
One writer per file means no cross-node locking, which SQLite cannot do safely
on network filesystems; commits happen per batch, so a killed job loses at
most the batch in flight.  ``compact()`` merges the files of a folder.

The key is the SHA-256 of: request kind, model id, weight revision, backend,
the rendered prompt (after the chat template), every decoding parameter, the
seed and (for structured output) the JSON schema.

Damage is never served and never deleted:

* every entry stores ``checksum``, the SHA-256 of its stored value (the
  canonical JSON text of the response).  On read a mismatch (a changed digit,
  a truncated value) is logged as a warning naming the file and the key, and
  the entry counts as a miss: the request is recomputed and the good value
  written to this job's own file;
* a file SQLite cannot read (not a database, malformed pages) is moved aside
  as ``<file>.corrupt-<UTC time>`` (its journal too), with a warning naming
  both paths; the job goes on (its own file is recreated empty, another job's
  file is skipped).  Another job's file gets two more tries a moment apart
  first, so a reader never moves aside a file that only looked damaged while
  it was being written;
* one process at a time writes a file: the cache takes an exclusive ``flock``
  on ``<writer>.sqlite.lock`` while it is open.  When a Snakemake run is
  killed, its running jobs live on (orphans); the rerun's job with the same
  writer waits for the orphan to finish (logged, naming its pid), then finds
  the orphan's requests in the cache instead of writing the same file at the
  same time;
* a file without the ``checksum`` column has nothing to check its entries
  against: it is moved aside like a damaged file, and its requests are
  recomputed.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import logging
import os
import re
import sqlite3
import time
from pathlib import Path
from typing import Any, Iterable

log = logging.getLogger(__name__)

SCHEMA_SQL = """
CREATE TABLE IF NOT EXISTS requests (
    key TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    request TEXT NOT NULL,
    response TEXT NOT NULL,
    created REAL NOT NULL,
    checksum TEXT
)
"""
COLUMNS = "key, kind, request, response, created, checksum"
# SQLite's codes for a file that is not (or no longer) a readable database
CORRUPT_CODES = {"SQLITE_CORRUPT", "SQLITE_NOTADB"}
READER_RETRIES = 2
READER_RETRY_WAIT_S = 0.5
WRITER_WAIT_LOG_S = 60.0
_writer_locks: dict[str, list[int]] = {}  # lock path -> [descriptor, users] in this process


def canonical_json(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def schema_json(schema: Any) -> str:
    """A JSON schema as compact text that keeps its key order: the order of
    ``properties`` is the order in which constrained decoding writes the fields."""
    return json.dumps(schema, separators=(",", ":"), ensure_ascii=False)


def request_key(kind: str, identity: dict[str, Any], payload: dict[str, Any]) -> str:
    blob = canonical_json({"kind": kind, "model": identity, "request": payload})
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def value_checksum(stored: str) -> str:
    """Checksum of a stored value (the canonical JSON text of a response)."""
    return hashlib.sha256(stored.encode("utf-8")).hexdigest()


def slugify(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_") or "x"


class CacheFileError(RuntimeError):
    """A job's own cache file cannot be used for a reason other than damage (permissions, disk full...)."""


def own_file_error(path: Path, err: BaseException) -> CacheFileError:
    return CacheFileError(
        f"request cache file {path}: {type(err).__name__}: {err}. Check that its folder is writable and its disk "
        "not full (the folder is config key 'cache_dir'); a damaged file would have been moved aside")


def is_corrupt(err: BaseException) -> bool:
    """True when SQLite says the file is damaged (not: locked, busy, missing table)."""
    return isinstance(err, sqlite3.DatabaseError) and getattr(err, "sqlite_errorname", "") in CORRUPT_CODES


def move_aside(path: Path, reason: str) -> Path:
    """Rename a damaged cache file (and its journal) to ``<file>.corrupt-<UTC time>``; never delete it."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    target = path.with_name(f"{path.name}.corrupt-{stamp}")
    n = 1
    while target.exists():
        target = path.with_name(f"{path.name}.corrupt-{stamp}-{n}")
        n += 1
    os.replace(path, target)
    journal = path.with_name(path.name + "-journal")
    if journal.exists():  # a journal must never be replayed into the file that replaces this one
        os.replace(journal, target.with_name(target.name + "-journal"))
    log.warning("request cache file %s is damaged (%s): moved aside to %s; its requests are recomputed",
                path, reason, target)
    return target


def acquire_writer_lock(path: Path) -> str:
    """Exclusive lock of a writer file for this process (shared by its caches); waits for another process."""
    lock = str(path) + ".lock"
    if lock in _writer_locks:
        _writer_locks[lock][1] += 1
        return lock
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    waited = None
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            now = time.monotonic()
            if waited is None or now - waited >= WRITER_WAIT_LOG_S:
                holder = os.pread(fd, 200, 0).decode(errors="replace") or "unknown"
                log.warning("request cache %s is being written by another process (%s), e.g. a job of a killed "
                            "run still going: waiting for it to finish", path, holder)
                waited = now
            time.sleep(0.5)
        except OSError as e:  # a filesystem without flock (some network mounts)
            log.warning("request cache %s: cannot lock %s (%s); one process per writer file is not enforced",
                        path, lock, e)
            break
    if waited is not None:
        log.warning("request cache %s: the other writer finished; going on", path)
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"pid {os.getpid()} on {os.uname().nodename}".encode(), 0)
    _writer_locks[lock] = [fd, 1]
    return lock


def release_writer_lock(lock: str) -> None:
    entry = _writer_locks.get(lock)
    if entry is None:
        return
    entry[1] -= 1
    if entry[1] <= 0:
        del _writer_locks[lock]
        os.close(entry[0])  # closing the descriptor releases the flock


# a file whose requests table has no checksum column: nothing to check its entries against
NO_CHECKSUMS = "integrity check: no checksum column, so no entry can be checked"


def _has_checksum(conn: sqlite3.Connection) -> bool:
    return any(row[1] == "checksum" for row in conn.execute("PRAGMA table_info(requests)"))


class RequestCache:
    """Per-model cache folder; this process writes ``<writer>.sqlite`` only."""

    def __init__(self, cache_dir: str | os.PathLike, model_slug: str, writer: str | None = None):
        self.folder = Path(cache_dir) / slugify(model_slug)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.writer = slugify(writer or f"{os.uname().nodename}-{os.getpid()}")
        self.path = self.folder / f"{self.writer}.sqlite"
        # damage seen by this process: checksum mismatches, files moved aside
        self.events: dict[str, int] = {"checksum_mismatches": 0, "files_moved_aside": 0}
        self._readers: dict[Path, sqlite3.Connection] = {}
        self._lock = acquire_writer_lock(self.path)
        self._conn = self._open_own()

    # -- own file ----------------------------------------------------------
    def _open_own(self) -> sqlite3.Connection:
        existed = self.path.exists() and self.path.stat().st_size > 0
        try:
            conn = self._connect_own()
            if existed:
                res = conn.execute("PRAGMA quick_check").fetchall()
                if res != [("ok",)]:
                    conn.close()
                    raise sqlite3.DatabaseError(f"integrity check: {res[0][0]}")
            return conn
        except sqlite3.DatabaseError as e:
            if not (is_corrupt(e) or str(e).startswith("integrity check")):
                raise own_file_error(self.path, e) from e
            self._quarantine_own(e)
            return self._connect_own()

    def _connect_own(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=60)
        try:
            conn.execute("PRAGMA journal_mode=DELETE")
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute(SCHEMA_SQL)
            if not _has_checksum(conn):
                raise sqlite3.DatabaseError(NO_CHECKSUMS)
            conn.commit()
        except sqlite3.DatabaseError:
            conn.close()
            raise
        return conn

    def _quarantine_own(self, err: BaseException) -> None:
        try:
            self._conn.close()
        except (AttributeError, sqlite3.Error):
            pass
        move_aside(self.path, f"{type(err).__name__}: {err}")
        self.events["files_moved_aside"] += 1

    def _reopen_own(self, err: BaseException) -> None:
        self._quarantine_own(err)
        self._conn = self._connect_own()

    # -- reading -----------------------------------------------------------
    def _open_reader(self, p: Path) -> sqlite3.Connection | None:
        """A read-only connection to another writer's file; None to skip it for now."""
        for attempt in range(READER_RETRIES + 1):
            try:
                c = sqlite3.connect(f"file:{p}?mode=ro", uri=True, timeout=60)
            except sqlite3.OperationalError:
                return None  # gone (moved aside by another reader) or not readable now
            try:
                c.execute("SELECT 1 FROM requests LIMIT 1").fetchall()
                if not _has_checksum(c):
                    c.close()
                    self._reader_damaged(p, sqlite3.DatabaseError(NO_CHECKSUMS))
                    return None
                return c
            except sqlite3.DatabaseError as e:
                c.close()
                if not is_corrupt(e):
                    return None  # a file another job is creating right now, or locked: next time
                if attempt < READER_RETRIES:
                    time.sleep(READER_RETRY_WAIT_S)
                    continue
                self._reader_damaged(p, e)
        return None

    def _reader_damaged(self, p: Path, err: BaseException) -> None:
        c = self._readers.pop(p, None)
        if c is not None:
            c.close()
        try:
            move_aside(p, f"{type(err).__name__}: {err}; read by writer {self.writer}")
            self.events["files_moved_aside"] += 1
        except FileNotFoundError:  # another job moved it first
            pass

    def _reader_conns(self) -> list[tuple[Path, sqlite3.Connection]]:
        conns = [(self.path, self._conn)]
        for p in sorted(self.folder.glob("*.sqlite")):
            if p == self.path:
                continue
            if p not in self._readers:
                c = self._open_reader(p)
                if c is None:
                    continue
                self._readers[p] = c
            conns.append((p, self._readers[p]))
        return conns

    def _select(self, p: Path, conn: sqlite3.Connection, keys: list[str]) -> list[tuple[str, str, str | None]]:
        rows = []
        for i in range(0, len(keys), 500):
            chunk = keys[i : i + 500]
            q = f"SELECT key, response, checksum FROM requests WHERE key IN ({','.join('?' * len(chunk))})"
            rows.extend(conn.execute(q, chunk).fetchall())
        return rows

    def _verified(self, p: Path, rows) -> dict[str, Any]:
        found: dict[str, Any] = {}
        for key, resp, checksum in rows:
            if checksum is None or value_checksum(resp) != checksum:
                self.events["checksum_mismatches"] += 1
                log.warning("request cache %s: entry %s does not match its checksum (the stored value was "
                            "changed); treated as a miss and recomputed", p, key)
                continue
            try:
                found[key] = json.loads(resp)
            except ValueError:
                self.events["checksum_mismatches"] += 1
                log.warning("request cache %s: entry %s is not valid JSON; treated as a miss and recomputed", p, key)
        return found

    def get_many(self, keys: Iterable[str]) -> dict[str, Any]:
        keys = list(dict.fromkeys(keys))
        found: dict[str, Any] = {}
        for p, conn in self._reader_conns():
            todo = [k for k in keys if k not in found]
            if not todo:
                break
            try:
                rows = self._select(p, conn, todo)
            except sqlite3.DatabaseError as e:
                if not is_corrupt(e):
                    if conn is self._conn:
                        raise own_file_error(p, e) from e
                    continue  # another job's file, locked or being replaced: skipped this time
                if conn is self._conn:
                    self._reopen_own(e)
                else:
                    self._reader_damaged(p, e)
                continue
            found.update(self._verified(p, rows))
        return found

    def get(self, key: str) -> Any | None:
        return self.get_many([key]).get(key)

    # -- writing -----------------------------------------------------------
    def put_many(self, rows: Iterable[tuple[str, str, dict, Any]]) -> None:
        """rows: (key, kind, request payload, response); one transaction."""
        now = time.time()
        values = []
        for k, kind, req, resp in rows:
            stored = canonical_json(resp)
            values.append((k, kind, canonical_json(req), stored, now, value_checksum(stored)))
        sql = f"INSERT OR REPLACE INTO requests ({COLUMNS}) VALUES (?,?,?,?,?,?)"
        try:
            with self._conn:
                self._conn.executemany(sql, values)
        except sqlite3.DatabaseError as e:
            if not is_corrupt(e):
                raise own_file_error(self.path, e) from e
            self._reopen_own(e)
            with self._conn:
                self._conn.executemany(sql, values)

    def __bool__(self) -> bool:  # an empty cache is still a cache
        return True

    def __len__(self) -> int:
        return sum(c.execute("SELECT COUNT(*) FROM requests").fetchone()[0] for _, c in self._reader_conns())

    def close(self) -> None:
        for c in self._readers.values():
            c.close()
        self._readers.clear()
        self._conn.close()
        if self._lock:
            release_writer_lock(self._lock)
            self._lock = ""


def compact(folder: str | os.PathLike, into: str = "merged") -> int:
    """Merge every writer file of a model folder into ``<into>.sqlite``; returns rows.

    Entries whose value does not match its checksum are left out (warned); a
    damaged file (or one without checksums) is moved aside, not merged."""
    folder = Path(folder)
    target = folder / f"{slugify(into)}.sqlite"
    conn = sqlite3.connect(target)
    conn.execute(SCHEMA_SQL)
    for p in sorted(folder.glob("*.sqlite")):
        if p == target:
            continue
        try:
            src = sqlite3.connect(f"file:{p}?mode=ro", uri=True)
            if not _has_checksum(src):
                src.close()
                raise sqlite3.DatabaseError(NO_CHECKSUMS)
            rows = src.execute("SELECT key, kind, request, response, created, checksum FROM requests").fetchall()
            src.close()
        except sqlite3.DatabaseError as e:
            if not (is_corrupt(e) or str(e) == NO_CHECKSUMS):
                raise
            move_aside(p, f"{type(e).__name__}: {e}")
            continue
        good = []
        for r in rows:
            if r[5] is None or value_checksum(r[3]) != r[5]:
                log.warning("request cache %s: entry %s does not match its checksum; not merged", p, r[0])
                continue
            good.append(r)
        with conn:
            conn.executemany(f"INSERT OR IGNORE INTO requests ({COLUMNS}) VALUES (?,?,?,?,?,?)", good)
        p.unlink()
    n = conn.execute("SELECT COUNT(*) FROM requests").fetchone()[0]
    conn.close()
    return n
