"""Progress lines of long steps: counts, rates, ETA and throttling (a fake backend and a fake
clock stand in for the model and time; the lines are what a user tailing the job log reads)."""

from __future__ import annotations

import logging
import re

import pytest

from cultalign.core.progress import Progress
from cultalign.models import ChatRequest, ModelClient, ModelSpec, RequestCache, SamplingParams
from cultalign.models.types import Generation

LINE = re.compile(r"model fake generate: (\d+)/(\d+) requests \((\d+)%\), ([\d.]+) requests/s, "
                  r"(\d+) generated tokens/s, elapsed \w+(?:, ETA (\w+))?$")


class FakeClock:
    def __init__(self):
        self.t = 0.0

    def __call__(self):
        return self.t


class FakeGenerateBackend:
    """A fake backend: echoes the prompt, 5 completion tokens per request, 2 s per batch
    on the fake clock."""

    def __init__(self, clock):
        self.clock, self.batches = clock, 0

    def generate(self, prompts, params, schema=None, messages=None, seeds=None):
        self.clock.t += 2.0
        self.batches += 1
        return [Generation(text=p[-12:], prompt_tokens=10, completion_tokens=5) for p in prompts]


def _messages(caplog):
    return [r.getMessage() for r in caplog.records if r.name == "cultalign.progress"]


def test_model_layer_logs_progress_per_batch(tmp_path, caplog, monkeypatch):
    clock = FakeClock()
    monkeypatch.setattr("cultalign.core.progress.time.monotonic", clock)
    spec = ModelSpec(name="fake", chat_template="plain", batch_size=4)
    backend = FakeGenerateBackend(clock)
    client = ModelClient(spec, RequestCache(tmp_path, "m", writer="w"), backend=backend)
    params = SamplingParams(temperature=0.0, max_new_tokens=5)
    reqs = [ChatRequest.make(f"question {i}", params) for i in range(40)]
    caplog.set_level(logging.INFO, logger="cultalign.progress")
    client.generate(reqs[:8])  # 8 now in the cache
    caplog.clear()
    backend.batches = 0
    client.generate(reqs + reqs[:3])  # 43 requests: 8 cached, 3 cached repeats, 32 to compute

    lines = _messages(caplog)
    assert lines[0] == ("model fake generate: started, 32 requests to do "
                        "(of 43: 11 from the cache, 0 repeated; batch size 4)")
    progress = [LINE.match(x) for x in lines[1:]]
    assert all(progress), lines
    done = [int(m.group(1)) for m in progress]
    # 8 batches of 4; every 10% (3.2 -> a line per batch of 4 here), the last one at 32/32
    assert done == [4, 8, 12, 16, 20, 24, 28, 32] and backend.batches == 8
    first, last = progress[0], progress[-1]
    assert first.group(2) == "32" and first.group(3) == "12"
    assert float(first.group(4)) == pytest.approx(2.0)  # 4 requests in 2 s
    assert int(first.group(5)) == 10  # 20 completion tokens in 2 s
    assert first.group(6) == "14s"  # 28 left at 2 requests/s
    assert last.group(3) == "100" and last.group(6) is None


def test_throttled_by_time_and_share():
    clock = FakeClock()
    records = []

    class Catch(logging.Handler):
        def emit(self, record):
            records.append(record.getMessage())

    logger = logging.getLogger("test.progress.throttle")
    logger.setLevel(logging.INFO)
    logger.addHandler(Catch())
    p = Progress("step", 1000, "items", every_s=30, every_frac=0.25, logger=logger, clock=clock)
    for i in range(1000):
        clock.t = (i + 1) / 10  # 100 s in all
        p.update(1)
    # started; 25/50/75% (25 s apart, under 30 s); 100%
    assert [r.split(":")[1].split()[0] for r in records] == ["started,", "250/1000", "500/1000", "750/1000",
                                                             "1000/1000"]
    records.clear()
    clock.t = 0
    p = Progress("slow", 1000, "items", every_s=30, every_frac=0.5, logger=logger, clock=clock)
    for i in range(1000):
        clock.t = (i + 1) / 10
        p.update(1)
    # every 30 s of the fake clock (half the total never passes between two lines); the end
    assert [r.split(":")[1].split()[0] for r in records] == ["started,", "300/1000", "600/1000", "900/1000",
                                                             "1000/1000"]


def test_nothing_to_do_logs_nothing(caplog):
    caplog.set_level(logging.INFO, logger="cultalign.progress")
    Progress("empty", 0)
    assert _messages(caplog) == []


@pytest.mark.slow
def test_real_model_progress_lines(smollm2_spec, smollm2_backend, tmp_path, caplog):
    """SmolLM2 through the transformers backend: one line per batch of 2, real token counts."""
    from dataclasses import replace

    spec = replace(smollm2_spec, batch_size=2)
    client = ModelClient(spec, RequestCache(tmp_path, "m", writer="w"), backend=smollm2_backend)
    params = SamplingParams(temperature=0.0, max_new_tokens=6)
    caplog.set_level(logging.INFO, logger="cultalign.progress")
    gens = client.generate([ChatRequest.make(f"Name a colour, number {i}.", params) for i in range(4)])
    lines = _messages(caplog)
    name = spec.name
    assert lines[0].startswith(f"model {name} generate: started, 4 requests to do")
    assert [x.split(": ")[1].split(" ")[0] for x in lines[1:]] == ["2/4", "4/4"]
    tokens = sum(g.completion_tokens for g in gens)
    assert tokens > 0 and re.search(r", (\d+) generated tokens/s", lines[-1]).group(1) != "0"
