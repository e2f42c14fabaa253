#!/usr/bin/env bash
# README command 1: install, then run every study end to end on demo inputs
# on the CPU, then build the HTML report (results/report.html).
set -euo pipefail
cd "$(dirname "$0")/.."
bash setup/install.sh
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 PYANNOTE_METRICS_ENABLED=0
# --show-failed-logs (also in profiles/default/): a failed job's log, ending with its
# `ERROR <Type>: <message>`, is printed on the terminal
.venv/bin/snakemake --cores "${CORES:-2}" --show-failed-logs "$@"
.venv/bin/snakemake --cores 1 --report results/report.html "$@"
echo "[embedded] done: results/ and results/report.html"
