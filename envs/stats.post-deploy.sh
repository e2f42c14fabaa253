#!/usr/bin/env bash
# Run by Snakemake inside the freshly created envs/stats.yaml env.
# irrcac's metadata pins scipy==1.12.0 (the env has scipy 1.17.1, with which it
# works); --no-deps keeps pip from replacing scipy.  Its real dependencies
# (numpy, pandas, scipy) are in stats.yaml.
set -euo pipefail
python -m pip install --no-deps irrcac==0.4.4
