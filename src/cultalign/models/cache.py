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
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
import time
from pathlib import Path
from typing import Any, Iterable

SCHEMA_SQL = """
CREATE TABLE IF NOT EXISTS requests (
    key TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    request TEXT NOT NULL,
    response TEXT NOT NULL,
    created REAL NOT NULL
)
"""


def canonical_json(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def schema_json(schema: Any) -> str:
    """A JSON schema as compact text that keeps its key order: the order of
    ``properties`` is the order in which constrained decoding writes the fields."""
    return json.dumps(schema, separators=(",", ":"), ensure_ascii=False)


def request_key(kind: str, identity: dict[str, Any], payload: dict[str, Any]) -> str:
    blob = canonical_json({"kind": kind, "model": identity, "request": payload})
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def slugify(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_") or "x"


class RequestCache:
    """Per-model cache folder; this process writes ``<writer>.sqlite`` only."""

    def __init__(self, cache_dir: str | os.PathLike, model_slug: str, writer: str | None = None):
        self.folder = Path(cache_dir) / slugify(model_slug)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.writer = slugify(writer or f"{os.uname().nodename}-{os.getpid()}")
        self.path = self.folder / f"{self.writer}.sqlite"
        self._conn = sqlite3.connect(self.path, timeout=60)
        self._conn.execute("PRAGMA journal_mode=DELETE")
        self._conn.execute("PRAGMA synchronous=FULL")
        self._conn.execute(SCHEMA_SQL)
        self._conn.commit()
        self._readers: dict[Path, sqlite3.Connection] = {}

    # -- reading -----------------------------------------------------------
    def _reader_conns(self) -> list[sqlite3.Connection]:
        conns = [self._conn]
        for p in sorted(self.folder.glob("*.sqlite")):
            if p == self.path:
                continue
            if p not in self._readers:
                try:
                    c = sqlite3.connect(f"file:{p}?mode=ro", uri=True, timeout=60)
                    c.execute("SELECT 1 FROM requests LIMIT 1")
                except sqlite3.DatabaseError:
                    continue  # a file another job is creating right now
                self._readers[p] = c
            conns.append(self._readers[p])
        return conns

    def get_many(self, keys: Iterable[str]) -> dict[str, Any]:
        keys = list(dict.fromkeys(keys))
        found: dict[str, Any] = {}
        for conn in self._reader_conns():
            todo = [k for k in keys if k not in found]
            if not todo:
                break
            for i in range(0, len(todo), 500):
                chunk = todo[i : i + 500]
                q = f"SELECT key, response FROM requests WHERE key IN ({','.join('?' * len(chunk))})"
                for k, resp in conn.execute(q, chunk):
                    found[k] = json.loads(resp)
        return found

    def get(self, key: str) -> Any | None:
        return self.get_many([key]).get(key)

    # -- writing -----------------------------------------------------------
    def put_many(self, rows: Iterable[tuple[str, str, dict, Any]]) -> None:
        """rows: (key, kind, request payload, response); one transaction."""
        now = time.time()
        with self._conn:
            self._conn.executemany(
                "INSERT OR REPLACE INTO requests (key, kind, request, response, created) VALUES (?,?,?,?,?)",
                [(k, kind, canonical_json(req), canonical_json(resp), now) for k, kind, req, resp in rows],
            )

    def __bool__(self) -> bool:  # an empty cache is still a cache
        return True

    def __len__(self) -> int:
        return sum(c.execute("SELECT COUNT(*) FROM requests").fetchone()[0] for c in self._reader_conns())

    def close(self) -> None:
        for c in self._readers.values():
            c.close()
        self._readers.clear()
        self._conn.close()


def compact(folder: str | os.PathLike, into: str = "merged") -> int:
    """Merge every writer file of a model folder into ``<into>.sqlite``; returns rows."""
    folder = Path(folder)
    target = folder / f"{slugify(into)}.sqlite"
    conn = sqlite3.connect(target)
    conn.execute(SCHEMA_SQL)
    for p in sorted(folder.glob("*.sqlite")):
        if p == target:
            continue
        conn.execute("ATTACH DATABASE ? AS src", (str(p),))
        conn.execute("INSERT OR IGNORE INTO requests SELECT * FROM src.requests")
        conn.commit()
        conn.execute("DETACH DATABASE src")
        p.unlink()
    n = conn.execute("SELECT COUNT(*) FROM requests").fetchone()[0]
    conn.close()
    return n
