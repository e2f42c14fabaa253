"""What a thin rule script needs from the ``snakemake`` object, in one place.

A script reads only ``snakemake.input / output / params / log / wildcards``;
every config value reaches it as a named param (``rules/common.smk``:
``conf``, ``llm_of``), so Snakemake sees each one.  ::

    job = Job(snakemake)              # logging goes to the rule's log file
    df = compute(job.input.table, job.params.bootstrap)
    job.write_table(df, job.output.table, counts={"rows": len(df)})

``job.record()`` (rule, wildcards, params, code hash, synthetic inputs) goes into every sidecar.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .provenance import canonical, sidecar_path, synthetic_inputs_of_files, write_sidecar

if TYPE_CHECKING:
    import pandas as pd


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


class Job:
    """One running rule job, seen through the ``snakemake`` object of its script."""

    def __init__(self, snakemake):
        self.smk = snakemake
        self.rule: str = snakemake.rule
        self.input = snakemake.input
        self.output = snakemake.output
        self.params = snakemake.params
        self.wildcards = snakemake.wildcards
        self.threads: int = snakemake.threads
        self.log = setup_logging(snakemake)
        # Snakemake removes a job's outputs before it runs, but not their sidecars: remove them
        # too, so a failed job never leaves the sidecar of an earlier run behind
        for out in self.output:
            sidecar_path(out).unlink(missing_ok=True)
        # synthetic inputs: those the job reads directly (param `synthetic_inputs`, rules/common.smk)
        # and those its input tables were computed from (their sidecars)
        direct = self.params.get("synthetic_inputs") or []
        self.synthetic_inputs: list[str] = sorted(set(direct) | set(synthetic_inputs_of_files(self.input)))

    @property
    def seed(self) -> int:
        return self.params.seed

    @property
    def writer(self) -> str:
        """Stable request-cache writer name: rule plus wildcards (a restarted job reuses its file)."""
        wc = "_".join(f"{k}-{v}" for k, v in sorted(dict(self.wildcards).items()))
        return f"{self.rule}_{wc}" if wc else self.rule

    def record(self) -> dict[str, Any]:
        """Rule, wildcards, the config values it received (params) and its code hash."""
        params = {k: v for k, v in self.params.items() if k not in ("code", "synthetic_inputs")}
        return {"rule": self.rule, "wildcards": dict(self.wildcards), "params": canonical(params),
                "code": self.params.get("code"), "synthetic_inputs": self.synthetic_inputs}

    def write_table(self, df: "pd.DataFrame", path: str | Path, **provenance: Any) -> Path:
        """Write a TSV table and its sidecar (see ``provenance.sidecar_record`` for the keywords)."""
        from .tables import write_table  # pandas only where a table is written

        return write_table(df, path, job=self.record(), **provenance)

    def sidecar(self, path: str | Path, **provenance: Any) -> Path:
        """The sidecar of an output that is not a TSV table (a figure, a folder)."""
        return write_sidecar(path, job=self.record(), **provenance)
