"""Fault injection on the request cache: real SQLite files damaged by the test.

Each test names the fault it injects (see docs/reliability.md): a changed digit
inside a stored value, a job's own file overwritten or truncated, another job's
file damaged, a file without checksums, a file being created.
"""

from __future__ import annotations

import logging
import os
import sqlite3

import pytest

from cultalign.models import ModelClient, ModelSpec, RequestCache, ScoreItem
from cultalign.models.cache import value_checksum
from cultalign.models.types import OptionScores

SPEC = ModelSpec(name="fake", chat_template="plain", batch_size=4)
N_ITEMS = 60


class FakeScoringBackend:
    """A fake backend for the logic around it: deterministic log-probs, every call counted."""

    def __init__(self):
        self.scored = 0

    def score(self, batch):
        self.scored += len(batch)
        out = []
        for prompt, options in batch:
            i = int(prompt.split("item ")[1].split()[0])
            out.append(OptionScores([-9.111 - i / 1000, -1.25 - i / 1000][: len(options)], [1] * len(options)))
        return out


def items(n=N_ITEMS):
    # long prompts, so the file spans many pages
    return [ScoreItem.make(f"item {i} " + "filler " * 60, ["A", "B"]) for i in range(n)]


def fill(folder, writer="job-a", n=N_ITEMS):
    backend = FakeScoringBackend()
    client = ModelClient(SPEC, RequestCache(folder, "m", writer=writer), backend=backend)
    ref = client.score_options(items(n))
    client.cache.close()
    assert backend.scored == n
    return ref, folder / "m" / f"{writer}.sqlite"


def rerun(folder, writer):
    backend = FakeScoringBackend()
    client = ModelClient(SPEC, RequestCache(folder, "m", writer=writer), backend=backend)
    got = client.score_options(items())
    return got, backend, client


def corrupt_files(folder):
    return sorted(p.name for p in (folder / "m").glob("*.corrupt-*"))


@pytest.mark.parametrize("whose", ["own", "other"])
def test_fault_cache_changed_digit_is_detected_and_recomputed(tmp_path, caplog, whose):
    ref, path = fill(tmp_path)
    raw = path.read_bytes()
    assert raw.count(b"-9.111") == 1  # item 0's first log-prob, once in the file
    path.write_bytes(raw.replace(b"-9.111", b"-1.111"))  # same length: SQLite itself sees nothing
    caplog.set_level(logging.WARNING, logger="cultalign.models.cache")
    got, backend, client = rerun(tmp_path, "job-a" if whose == "own" else "job-b")
    assert backend.scored == 1  # only the damaged entry is recomputed
    assert client.stats["cache_hits"] == N_ITEMS - 1
    assert [g.logprobs for g in got] == [r.logprobs for r in ref]  # -9.111 served, never -1.111
    assert client.cache.events["checksum_mismatches"] == 1
    from cultalign.core.provenance import sidecar_record

    assert sidecar_record(tmp_path / "x.tsv", client=client)["cache_events"]["checksum_mismatches"] == 1
    msg = "\n".join(r.getMessage() for r in caplog.records)
    assert str(path) in msg and "checksum" in msg
    # the recomputed value went to the reader's own file: a third run is all hits
    got3, backend3, _ = rerun(tmp_path, "job-a" if whose == "own" else "job-b")
    assert backend3.scored == 0 or whose == "other"  # job-b's file holds the good value
    assert corrupt_files(tmp_path) == []  # a bad entry is no reason to move a file


def _overwrite_header(path):
    with open(path, "r+b") as f:
        f.write(b"this is not a database" * 8)


def _overwrite_table_page(path):
    with open(path, "r+b") as f:
        f.seek(4096)  # page 2: root page of the requests table
        f.write(b"\xff" * 512)


def _truncate(path):
    os.truncate(path, 100)


FAULTS = {"overwrite_header": _overwrite_header, "overwrite_page": _overwrite_table_page, "truncate": _truncate}


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_fault_cache_own_file_damaged_is_moved_aside_and_recreated(tmp_path, caplog, fault):
    ref, path = fill(tmp_path)
    FAULTS[fault](path)
    damaged = path.read_bytes()
    caplog.set_level(logging.WARNING, logger="cultalign.models.cache")
    got, backend, client = rerun(tmp_path, "job-a")
    assert [g.logprobs for g in got] == [r.logprobs for r in ref]
    assert backend.scored == N_ITEMS  # nothing trustworthy left: everything recomputed
    aside = corrupt_files(tmp_path)
    assert len(aside) == 1 and aside[0].startswith("job-a.sqlite.corrupt-")
    assert (tmp_path / "m" / aside[0]).read_bytes() == damaged  # kept as it was, never deleted
    msg = "\n".join(r.getMessage() for r in caplog.records)
    assert str(path) in msg and aside[0] in msg
    # the recreated file is sound and complete
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA quick_check").fetchone() == ("ok",)
    assert con.execute("SELECT COUNT(*) FROM requests").fetchone()[0] == N_ITEMS


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_fault_cache_other_file_damaged_is_warned_and_moved_aside(tmp_path, caplog, fault, monkeypatch):
    monkeypatch.setattr("cultalign.models.cache.READER_RETRY_WAIT_S", 0.01)
    ref, path = fill(tmp_path, writer="job-b")
    FAULTS[fault](path)
    caplog.set_level(logging.WARNING, logger="cultalign.models.cache")
    got, backend, client = rerun(tmp_path, "job-a")
    assert [g.logprobs for g in got] == [r.logprobs for r in ref]
    assert backend.scored == N_ITEMS
    assert not path.exists()
    aside = corrupt_files(tmp_path)
    assert len(aside) == 1 and aside[0].startswith("job-b.sqlite.corrupt-")
    msg = "\n".join(r.getMessage() for r in caplog.records)
    assert str(path) in msg and "moved aside" in msg


def test_fault_cache_file_being_created_is_skipped_silently(tmp_path, caplog):
    fill(tmp_path, writer="job-a")
    (tmp_path / "m" / "job-new.sqlite").touch()  # another job has just opened its file
    caplog.set_level(logging.WARNING, logger="cultalign.models.cache")
    got, backend, client = rerun(tmp_path, "job-a")
    assert backend.scored == 0
    assert (tmp_path / "m" / "job-new.sqlite").exists() and corrupt_files(tmp_path) == []
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]  # progress lines are INFO


def _drop_checksums(path):
    con = sqlite3.connect(path)  # the same entries in a table without the checksum column
    con.executescript("""
        CREATE TABLE old (key TEXT PRIMARY KEY, kind TEXT NOT NULL, request TEXT NOT NULL,
                          response TEXT NOT NULL, created REAL NOT NULL);
        INSERT INTO old SELECT key, kind, request, response, created FROM requests;
        DROP TABLE requests; ALTER TABLE old RENAME TO requests;""")
    con.close()


@pytest.mark.parametrize("whose", ["own", "other"])
def test_fault_cache_file_without_checksums_is_moved_aside_and_recomputed(tmp_path, caplog, whose):
    """A file whose entries cannot be checked is never served: moved aside like a damaged file."""
    ref, path = fill(tmp_path, writer="job-b")
    _drop_checksums(path)
    caplog.set_level(logging.WARNING, logger="cultalign.models.cache")
    got, backend, client = rerun(tmp_path, "job-b" if whose == "own" else "job-a")
    assert backend.scored == N_ITEMS and [g.logprobs for g in got] == [r.logprobs for r in ref]
    assert client.cache.events["files_moved_aside"] == 1
    assert len(corrupt_files(tmp_path)) == 1 and corrupt_files(tmp_path)[0].startswith("job-b.sqlite.corrupt-")
    assert [r for r in caplog.records if "no checksum column" in r.getMessage() and str(path) in r.getMessage()]
    if whose == "own":  # the new own file checksums every entry
        rows = sqlite3.connect(path).execute("SELECT response, checksum FROM requests").fetchall()
        assert len(rows) == N_ITEMS and all(c == value_checksum(r) for r, c in rows)


def test_compact_moves_a_file_without_checksums_aside(tmp_path):
    from cultalign.models.cache import compact

    fill(tmp_path, writer="job-a")
    _, path = fill(tmp_path / "b", writer="job-b")
    _drop_checksums(path)
    path.rename(tmp_path / "m" / "job-b.sqlite")
    assert compact(tmp_path / "m") == N_ITEMS
    assert corrupt_files(tmp_path) and corrupt_files(tmp_path)[0].startswith("job-b.sqlite.corrupt-")


ORPHAN = """
import sys, time
from cultalign.models.cache import RequestCache
c = RequestCache(sys.argv[1], "m", writer="job-a")
print("open", flush=True)
time.sleep(2.0)  # the orphaned job of a killed run, still computing
c.put_many([("k-orphan", "score", {}, {"logprobs": [-2.5], "token_counts": [1]})])
"""


def test_fault_cache_orphan_writer_is_waited_for(tmp_path, caplog):
    """The job of a killed run lives on: the rerun's job (same writer) waits, then sees its requests."""
    import subprocess
    import sys
    import time
    from pathlib import Path

    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")}
    orphan = subprocess.Popen([sys.executable, "-c", ORPHAN, str(tmp_path)], env=env, stdout=subprocess.PIPE,
                              text=True)
    assert orphan.stdout.readline().strip() == "open"
    caplog.set_level(logging.WARNING, logger="cultalign.models.cache")
    t0 = time.monotonic()
    cache = RequestCache(tmp_path, "m", writer="job-a")
    waited = time.monotonic() - t0
    assert orphan.wait(30) == 0
    assert waited > 1.0
    assert cache.get("k-orphan") == {"logprobs": [-2.5], "token_counts": [1]}
    msg = "\n".join(r.getMessage() for r in caplog.records)
    assert f"pid {orphan.pid}" in msg and "job-a.sqlite" in msg and "waiting" in msg
    # within one process, caches of one writer share the lock (no self-deadlock)
    again = RequestCache(tmp_path, "m", writer="job-a")
    again.close()
    cache.put_many([("k2", "score", {}, {"logprobs": [-1.0], "token_counts": [1]})])
    cache.close()


def test_fault_cache_own_file_unwritable_names_file_and_key(tmp_path):
    """Not damage but a file the job cannot write (read-only here): a clear error, nothing moved aside."""
    from cultalign.models.cache import CacheFileError

    _, path = fill(tmp_path)
    cache = RequestCache(tmp_path, "m", writer="job-a")
    cache._conn.close()
    cache._conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)  # as if the file had become read-only
    with pytest.raises(CacheFileError, match=rf"{path}.*config key 'cache_dir'"):
        cache.put_many([("k", "score", {}, {"logprobs": [-1.0], "token_counts": [1]})])
    assert corrupt_files(tmp_path) == []


def test_fault_cache_compact_leaves_out_changed_entries_and_damaged_files(tmp_path, caplog, monkeypatch):
    from cultalign.models.cache import compact

    _, a = fill(tmp_path, writer="job-a")
    for writer, n in (("job-b", 5), ("job-c", 2)):  # filled apart (each would read job-a's entries)
        _, f = fill(tmp_path / writer, writer=writer, n=n)  # items 0..n-1: keys job-a has too
        f.rename(tmp_path / "m" / f.name)
    a.write_bytes(a.read_bytes().replace(b"-9.111", b"-1.111"))
    _overwrite_header(tmp_path / "m" / "job-c.sqlite")
    caplog.set_level(logging.WARNING, logger="cultalign.models.cache")
    assert compact(tmp_path / "m") == N_ITEMS  # item 0's good value comes from job-b
    stored = [r[0] for r in sqlite3.connect(tmp_path / "m" / "merged.sqlite").execute("SELECT response FROM requests")]
    assert len(stored) == N_ITEMS and not any("-1.111" in v for v in stored) and any("-9.111" in v for v in stored)
    assert [n.split(".corrupt-")[0] for n in corrupt_files(tmp_path)] == ["job-c.sqlite"]  # kept, not merged
    assert any("not merged" in r.getMessage() for r in caplog.records)
