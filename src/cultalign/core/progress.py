"""Progress lines for long steps, written through ``logging`` to the job's log.

A user following a job (``tail -f logs/...`` or the SLURM job log) sees how far
it is: ``<label>: 40/120 requests (33%), 2.1 requests/s, 310 tokens/s, elapsed
19s, ETA 38s``.  Lines are throttled: one when the step starts, then at most one
every ``every_s`` seconds unless another ``every_frac`` of the total is done,
and always one at the end.
"""

from __future__ import annotations

import logging
import time
from typing import Callable

log = logging.getLogger("cultalign.progress")


def _duration(seconds: float) -> str:
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


class Progress:
    """Counts ``done`` of ``total`` units (and optionally tokens) and logs throttled lines.

    ``every_s``: a line at most this often (seconds) ...; ``every_frac``: ... unless this
    share of the total was done since the last line (0.1: every 10%).  ``clock``: seconds,
    monotonic (a test passes its own)."""

    def __init__(self, label: str, total: int, unit: str = "items", *, every_s: float = 30.0,
                 every_frac: float = 0.1, logger: logging.Logger | None = None,
                 clock: Callable[[], float] | None = None, start_note: str = "",
                 token_unit: str = "tokens"):
        self.label, self.total, self.unit, self.token_unit = label, int(total), unit, token_unit
        self.every_s, self.every_frac = every_s, every_frac
        self.log = logger or log
        self.clock = clock or time.monotonic
        self.done = 0
        self.tokens = 0
        self.t0 = self.clock()
        self._last_t = self.t0
        self._last_done = 0
        self._finished = False
        if self.total > 0:
            note = f" ({start_note})" if start_note else ""
            self.log.info("%s: started, %d %s to do%s", label, self.total, unit, note)

    def line(self) -> str:
        elapsed = max(self.clock() - self.t0, 1e-9)
        pct = 100.0 * self.done / self.total if self.total else 100.0
        parts = [f"{self.label}: {self.done}/{self.total} {self.unit} ({pct:.0f}%)",
                 f"{self.done / elapsed:.2f} {self.unit}/s"]
        if self.tokens:
            parts.append(f"{self.tokens / elapsed:.0f} {self.token_unit}/s")
        parts.append(f"elapsed {_duration(elapsed)}")
        if 0 < self.done < self.total:
            parts.append(f"ETA {_duration(elapsed / self.done * (self.total - self.done))}")
        return ", ".join(parts)

    def update(self, n: int = 1, tokens: int = 0) -> None:
        self.done += int(n)
        self.tokens += int(tokens)
        now = self.clock()
        step = max(1, int(self.total * self.every_frac)) if self.every_frac else self.total
        if (self.done >= self.total or now - self._last_t >= self.every_s
                or self.done - self._last_done >= step):
            self._emit(now)

    def _emit(self, now: float) -> None:
        if self._finished or self.total <= 0:
            return
        self.log.info("%s", self.line())
        self._last_t, self._last_done = now, self.done
        self._finished = self.done >= self.total
