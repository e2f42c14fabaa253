"""The process environment the workflow's Python processes share, set in one place.

``quiet_openmp``: OpenMP worker threads (torch's) spin-wait between parallel regions by
default.  On a shared or oversubscribed node (more runnable threads than cores) the spinning
threads take the cores from the threads doing the work: one decode step of a 135M model took
~7 s instead of ~0.15 s (measured, load ~7 on 2 cores), and SmolLM2 decoding went from ~1 to
~15 tokens per CPU second with PASSIVE (load ~6).  PASSIVE makes waiting threads sleep.  It
has to be set before torch (and its OpenMP runtime) is loaded: ``rules/common.smk`` calls it
while the Snakefile is parsed (rule scripts inherit it, also on cluster nodes, which parse the
Snakefile again), the tests' ``conftest.py`` and ``bench/common.py`` call it first thing.  A
setting already in the environment wins.
"""

from __future__ import annotations

import os
from collections.abc import MutableMapping


def quiet_openmp(environ: MutableMapping[str, str] = os.environ) -> None:
    """OpenMP threads sleep while they wait (``OMP_WAIT_POLICY=PASSIVE``) unless already set."""
    environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
