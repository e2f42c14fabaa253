"""cultalign.core.download against a real HTTP server on 127.0.0.1 (no network).

The server mimics a Hugging Face ``resolve`` endpoint: it serves a file and
names the commit it served in ``X-Repo-Commit``.
"""

from __future__ import annotations

import hashlib
import http.server
import threading

import pytest

from cultalign.core.download import check_served_commit, download

BODY = b"ID,Country\n1,japan\n"
COMMIT = "cb5d80d" + "0" * 33


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 (http.server API)
        if self.path.endswith("/missing.csv"):
            self.send_error(404)
            return
        self.send_response(200)
        if "/hf/" in self.path:
            self.send_header("X-Repo-Commit", COMMIT)
        self.send_header("Content-Length", str(len(BODY)))
        self.end_headers()
        self.wfile.write(BODY)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def server():
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    t = threading.Thread(target=httpd.serve_forever, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    t.join(5)


def test_download_checks_sha256_and_reports_served_commit(server, tmp_path):
    sha = hashlib.sha256(BODY).hexdigest()
    got = download(f"{server}/hf/data.csv", tmp_path / "a" / "data.csv", sha, revision="cb5d80d")
    assert got.path.read_bytes() == BODY
    assert got.sha256 == sha and got.served_commit == COMMIT


def test_checksum_mismatch_fails_and_leaves_nothing(server, tmp_path):
    with pytest.raises(ValueError, match=r"checksum mismatch .*expected sha256 0+, got [0-9a-f]{64}"):
        download(f"{server}/plain/data.csv", tmp_path / "data.csv", "0" * 64)
    assert list(tmp_path.iterdir()) == []


def test_unpinned_download_keeps_file_and_returns_its_hash(server, tmp_path):
    got = download(f"{server}/plain/data.csv", tmp_path / "data.csv", None)
    assert got.sha256 == hashlib.sha256(BODY).hexdigest() and got.served_commit is None


def test_served_commit_must_match_a_pinned_revision(server, tmp_path):
    with pytest.raises(ValueError, match="configured revision bc1d6a6 but the server served commit cb5d80d"):
        download(f"{server}/hf/data.csv", tmp_path / "data.csv", None, revision="bc1d6a6")
    assert list(tmp_path.iterdir()) == []


def test_http_error_leaves_nothing(server, tmp_path):
    with pytest.raises(Exception, match="404"):
        download(f"{server}/plain/missing.csv", tmp_path / "missing.csv", None)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("revision,served,ok", [
    ("cb5d80d", COMMIT, True),
    (COMMIT, COMMIT, True),
    ("CB5D80D", COMMIT, True),
    ("bc1d6a6", COMMIT, False),
    ("main", COMMIT, True),        # a branch name is not compared
    (None, COMMIT, True),
    ("cb5d80d", None, True),       # a server that does not report commits
])
def test_check_served_commit(revision, served, ok):
    if ok:
        check_served_commit("u", revision, served)
    else:
        with pytest.raises(ValueError):
            check_served_commit("u", revision, served)
