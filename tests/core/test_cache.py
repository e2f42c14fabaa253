"""Request cache: keys, per-writer files, concurrent writers, resume after SIGKILL."""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from cultalign.models.cache import RequestCache, compact, request_key

IDENT = {"model_id": "m", "revision": "r1", "backend": "transformers"}
PAYLOAD = {"prompt": "<s>hi", "params": {"temperature": 0.3, "top_p": 0.9, "max_new_tokens": 8, "stop": [],
                                          "seed": 1}, "schema": None}


@pytest.mark.parametrize("change", [
    ("ident", "model_id", "m2"), ("ident", "revision", "r2"), ("ident", "backend", "vllm"),
    ("payload", "prompt", "<s>hi "), ("params", "temperature", 0.31), ("params", "top_p", 1.0),
    ("params", "max_new_tokens", 9), ("params", "seed", 2), ("params", "stop", ["\n"]),
    ("payload", "schema", '{"type":"object"}'),
])
def test_every_field_changes_the_key(change):
    where, field, value = change
    ident, payload = dict(IDENT), {**PAYLOAD, "params": dict(PAYLOAD["params"])}
    target = {"ident": ident, "payload": payload, "params": payload["params"]}[where]
    target[field] = value
    assert request_key("generate", ident, payload) != request_key("generate", IDENT, PAYLOAD)


def test_kind_and_key_order_independence():
    assert request_key("score", IDENT, PAYLOAD) != request_key("generate", IDENT, PAYLOAD)
    reordered = dict(reversed(list(PAYLOAD.items())))
    assert request_key("generate", IDENT, reordered) == request_key("generate", IDENT, PAYLOAD)


def _writer(folder: str, name: str, n: int) -> None:
    c = RequestCache(folder, "model", writer=name)
    for i in range(n):
        c.put_many([(f"{name}-{i}", "generate", {"i": i}, {"text": str(i)})])


def test_concurrent_writers_each_own_file_all_visible(tmp_path):
    procs = [mp.Process(target=_writer, args=(str(tmp_path), f"job{j}", 200)) for j in range(3)]
    for p in procs:
        p.start()
    reader = RequestCache(tmp_path, "model", writer="reader")
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    got = reader.get_many([f"job{j}-{i}" for j in range(3) for i in range(200)])
    assert len(got) == 600
    assert sorted(x.name for x in (tmp_path / "model").glob("*.sqlite")) == [
        "job0.sqlite", "job1.sqlite", "job2.sqlite", "reader.sqlite"]
    assert compact(tmp_path / "model") == 600
    assert [x.name for x in (tmp_path / "model").glob("*.sqlite")] == ["merged.sqlite"]


KILL_SCRIPT = textwrap.dedent("""
    import sys, time
    from cultalign.models.cache import RequestCache
    c = RequestCache(sys.argv[1], "model", writer="shard-000")
    done = c.get_many([f"k{i}" for i in range(100)])
    calls = 0
    for i in range(100):
        if f"k{i}" in done:
            continue
        time.sleep(0.02)          # the "model call"
        calls += 1
        c.put_many([(f"k{i}", "generate", {"i": i}, {"text": str(i)})])
    print(calls)
""")


def test_killed_job_resumes_without_redoing_completed_requests(tmp_path):
    script = tmp_path / "job.py"
    script.write_text(KILL_SCRIPT)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")}
    p = subprocess.Popen([sys.executable, str(script), str(tmp_path)], env=env, stdout=subprocess.PIPE)
    db = tmp_path / "model" / "shard-000.sqlite"
    deadline = time.time() + 60
    done_before = 0
    while time.time() < deadline:
        if db.exists():
            try:
                done_before = sqlite3.connect(db).execute("SELECT COUNT(*) FROM requests").fetchone()[0]
            except sqlite3.Error:
                done_before = 0
            if done_before >= 20:
                break
        time.sleep(0.05)
    p.send_signal(signal.SIGKILL)
    p.wait()
    assert p.returncode == -signal.SIGKILL
    done_at_kill = sqlite3.connect(db).execute("SELECT COUNT(*) FROM requests").fetchone()[0]
    assert 20 <= done_at_kill < 100
    out = subprocess.run([sys.executable, str(script), str(tmp_path)], env=env, capture_output=True, text=True,
                         check=True)
    assert int(out.stdout.strip()) == 100 - done_at_kill  # only the missing requests ran
    assert sqlite3.connect(db).execute("SELECT COUNT(*) FROM requests").fetchone()[0] == 100
