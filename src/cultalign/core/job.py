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
import os
import sys
import traceback
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .provenance import StaleSidecarError, canonical, sidecar_path, synthetic_inputs_of_files, write_sidecar

if TYPE_CHECKING:
    import pandas as pd


def error_lines(exc: BaseException) -> list[str]:
    """The cause of a failure in a form one can grep for: ``ERROR <Type>: <message>``
    (a message of several lines continues, indented, on the following lines)."""
    msg = str(exc).strip().splitlines() or [""]
    head = f"ERROR {type(exc).__name__}: {msg[0]}".rstrip()
    return [head] + [f"    {line}" for line in msg[1:]]


def traceback_path(log: str | Path) -> Path:
    """Where the traceback of an input error goes: beside the rule log (``<log>.traceback``)."""
    return Path(str(log) + ".traceback")


def install_error_tail(log_fh, terminal, where: str, input_traceback: Path | None = None) -> None:
    """On an uncaught exception: the traceback, then ``error_lines`` as the LAST lines of the
    log (so its tail is the cause), and the same lines on the job's own stderr (the terminal
    of a local run, the SLURM job log on a cluster), prefixed with ``where``.

    An input error (:class:`cultalign.core.inputs.InputError`: a bad file of the user's, named
    with its line and config key) is the user's to fix, not a bug: its traceback (through pypdf,
    PyAV...) goes to ``input_traceback`` and the log names that file, so that the log, which the
    workflow profile prints on the terminal (``show-failed-logs``), ends in the one line.  So does
    a :class:`StaleSidecarError` (an input file that does not match what its rule wrote: damaged)."""
    from .inputs import InputError

    def hook(etype, value, tb):
        if input_traceback is not None and isinstance(value, (InputError, StaleSidecarError)):
            with open(input_traceback, "w") as f:
                traceback.print_exception(etype, value, tb, file=f)
            log_fh.write(f"input error (its traceback: {input_traceback})\n")
        else:
            traceback.print_exception(etype, value, tb, file=log_fh)
        lines = error_lines(value)
        log_fh.write("\n".join(lines) + "\n")
        log_fh.flush()
        if terminal is not None and terminal is not log_fh:
            terminal.write("".join(f"[{where}] {line}\n" for line in lines))
            terminal.flush()

    sys.excepthook = hook


def setup_logging(snakemake) -> logging.Logger:
    """Send stdout, stderr and logging of the script to ``snakemake.log[0]``; an uncaught
    exception ends the log with ``ERROR <Type>: <message>`` and is echoed on the terminal."""
    if snakemake.log:
        Path(snakemake.log[0]).parent.mkdir(parents=True, exist_ok=True)
        fh = open(snakemake.log[0], "a", buffering=1)
        terminal = sys.stderr
        sys.stdout = fh
        sys.stderr = fh
        wc = ",".join(f"{k}={v}" for k, v in dict(snakemake.wildcards).items())
        tb_file = traceback_path(snakemake.log[0])
        tb_file.unlink(missing_ok=True)  # an earlier run's
        install_error_tail(fh, terminal, f"{snakemake.rule}{f' {wc}' if wc else ''}; log {snakemake.log[0]}",
                           input_traceback=tb_file)
        logging.basicConfig(stream=fh, level=logging.INFO,
                            format="%(asctime)s %(levelname)s %(name)s: %(message)s", force=True)
    else:
        logging.basicConfig(level=logging.INFO, force=True)
    return logging.getLogger(snakemake.rule)


_CURRENT: "Job | None" = None


def current_job() -> "Job | None":
    """The Job of the running rule script (None outside one): figures read their synthetic mark
    and the models' display names from it (``cultalign.core.figures``)."""
    return _CURRENT


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
        # the config key of each input file set by one (rules/common.smk): input errors name it
        from .inputs import register_keys

        register_keys(self.params.get("input_keys") or {})
        # Snakemake removes a job's outputs before it runs, but not their sidecars: remove them
        # too, so a failed job never leaves the sidecar of an earlier run behind
        for out in self.output:
            sidecar_path(out).unlink(missing_ok=True)
        # synthetic inputs: those the job reads directly (param `synthetic_inputs`, rules/common.smk)
        # and those its input tables were computed from (their sidecars)
        direct = self.params.get("synthetic_inputs") or []
        self.synthetic_inputs: list[str] = sorted(set(direct) | set(synthetic_inputs_of_files(self.input)))
        # when the script fails, Snakemake removes the tables it wrote: remove their sidecars too
        self.sidecars_written: list[Path] = []
        self._discard_on_error()
        global _CURRENT
        _CURRENT = self

    def _discard_on_error(self) -> None:
        """An uncaught exception in the script removes every sidecar this job wrote (then reports as usual)."""
        previous = sys.excepthook

        def hook(exc_type, exc, tb):
            self.discard_sidecars()
            previous(exc_type, exc, tb)

        sys.excepthook = hook

    def discard_sidecars(self) -> None:
        for p in self.sidecars_written:
            p.unlink(missing_ok=True)
        self.sidecars_written.clear()

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
        """Write a TSV table and its sidecar (see ``provenance.sidecar_record`` for the keywords);
        when the rule declares the table's ``.html`` sibling as an output (a table shown in the
        report), write that page too (``htmltables``)."""
        from .tables import write_table  # pandas only where a table is written

        self.sidecars_written.append(sidecar_path(path))
        written = write_table(df, path, job=self.record(), **provenance)
        self.write_report_page(df, path)
        return written

    def write_report_page(self, df: "pd.DataFrame", path: str | Path, notes=()) -> Path | None:
        """The HTML page of table ``path`` when it is one of the job's outputs (else nothing); ``notes``:
        paragraphs shown above the table."""
        from .htmltables import html_path_of, write_html_table

        page = html_path_of(path)
        if os.path.normpath(page) not in {os.path.normpath(str(o)) for o in self.output}:
            return None
        return write_html_table(df, page, source=path, synthetic_inputs=self.synthetic_inputs, notes=notes)

    def sidecar(self, path: str | Path, **provenance: Any) -> Path:
        """The sidecar of an output that is not a TSV table (a figure, a folder); write it after the output."""
        self.sidecars_written.append(sidecar_path(path))
        return write_sidecar(path, job=self.record(), **provenance)
