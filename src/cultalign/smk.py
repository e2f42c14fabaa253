"""Helpers for thin rule scripts: logging to the rule's log file, model clients."""

from __future__ import annotations

import logging
import sys
from pathlib import Path


def setup_logging(snakemake) -> logging.Logger:
    """Send stdout, stderr and logging of the script to ``snakemake.log[0]``."""
    if snakemake.log:
        Path(snakemake.log[0]).parent.mkdir(parents=True, exist_ok=True)
        fh = open(snakemake.log[0], "a", buffering=1)
        sys.stdout = fh
        sys.stderr = fh
        logging.basicConfig(stream=fh, level=logging.INFO,
                            format="%(asctime)s %(levelname)s %(name)s: %(message)s", force=True)
    else:
        logging.basicConfig(level=logging.INFO, force=True)
    return logging.getLogger(snakemake.rule)


def writer_id(snakemake) -> str:
    """Stable cache writer name: rule plus wildcards (a restarted job reuses its file)."""
    wc = "_".join(f"{k}-{v}" for k, v in sorted(dict(snakemake.wildcards).items()))
    return f"{snakemake.rule}_{wc}" if wc else snakemake.rule


def client_for(snakemake, model_name: str):
    """A ModelClient for ``config.models[model_name]`` with the shared request cache."""
    from .models import load_client

    cfg = snakemake.config
    return load_client(cfg["models"], model_name, cfg["cache_dir"], writer=writer_id(snakemake),
                       retry_temperature=cfg["retry"]["temperature"])
