# A container for reviewers: the embedded default's CPU stack, the one CI tests
# (Debian bookworm, Python 3.11, .venv pinned by requirements/cpu.txt, R with
# lme4 from Debian for the regressions, espeak-ng/sox/ffmpeg for the demo
# podcast).  It runs every study end to end on the demo inputs with
# SmolLM2-135M-Instruct from PyPI and writes results/ and results/report.html.
#
#   docker build -t cultalign .
#   docker run --rm -v "$PWD/results:/cultalign/results" cultalign
#   docker run --rm cultalign .venv/bin/snakemake --cores 2 personas_table1   # one target
#
# Apptainer: `apptainer build cultalign.sif docker-daemon://cultalign:latest`.
# The per-rule conda envs (envs/*.yaml) are not used inside: Snakemake's own
# `--containerize` refuses this workflow (model rules choose their env from
# the model's backend, a function).
FROM python:3.11-slim-bookworm

ENV DEBIAN_FRONTEND=noninteractive \
    HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 PYANNOTE_METRICS_ENABLED=0 \
    PIP_NO_CACHE_DIR=1
# a compiler for rpy2 (pip builds it from source against R)
RUN apt-get update -qq \
    && apt-get install -y -qq --no-install-recommends build-essential \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /cultalign
COPY . .
# apt packages (R, lme4, audio tools) and .venv, exactly as on a developer's machine
RUN bash setup/install.sh && rm -rf /var/lib/apt/lists/*
CMD ["bash", "setup/run-embedded.sh"]
