"""How generation requests are cut into batches: ordered by prompt length in the client, and bounded in
token positions in the transformers backend (a fake backend records the batches it is given; the bound's
arithmetic is a pure function)."""

from __future__ import annotations

import pytest

from cultalign.models import ChatRequest, ModelClient, ModelSpec, RequestCache, SamplingParams
from cultalign.models.transformers_backend import token_bounded_ranges
from cultalign.models.types import Generation


class FakeRecordingBackend:
    """A fake backend: records each batch's prompts and answers with the prompt's length."""

    def __init__(self):
        self.batches: list[list[str]] = []

    def generate(self, prompts, params, schema=None, messages=None, seeds=None):
        self.batches.append(list(prompts))
        return [Generation(text=str(len(p)), prompt_tokens=1, completion_tokens=1) for p in prompts]


def test_client_batches_prompts_of_similar_length_and_answers_in_request_order(tmp_path):
    backend = FakeRecordingBackend()
    client = ModelClient(ModelSpec(name="fake", backend="transformers", chat_template="plain", batch_size=3),
                         RequestCache(tmp_path, "m", writer="w"), backend=backend)
    params = SamplingParams(temperature=0.0, max_new_tokens=4)
    words = [7, 1, 12, 3, 9, 2, 5]  # request lengths out of order
    reqs = [ChatRequest.make("w " * n, params) for n in words]
    gens = client.generate(reqs)

    assert [g.text for g in gens] == [str(len(client.render(r.messages))) for r in reqs]
    assert [len(b) for b in backend.batches] == [3, 3, 1]
    flat = [len(p) for b in backend.batches for p in b]
    assert flat == sorted(flat)  # shortest first, so a batch's prompts are of similar length


@pytest.mark.parametrize("backend_kind", ["vllm", "openai"])
def test_client_keeps_request_order_for_engines_that_schedule_themselves(tmp_path, backend_kind):
    backend = FakeRecordingBackend()
    client = ModelClient(ModelSpec(name="fake", backend=backend_kind, chat_template="plain", batch_size=3),
                         RequestCache(tmp_path, "m", writer="w"), backend=backend)
    params = SamplingParams(temperature=0.0, max_new_tokens=4)
    reqs = [ChatRequest.make("w " * n, params) for n in (7, 1, 12, 3)]
    client.generate(reqs)
    assert [p for b in backend.batches for p in b] == [client.render(r.messages) for r in reqs]


@pytest.mark.parametrize(("lens", "new", "bound", "want"), [
    ([10, 10, 10, 10], 6, 64, [(0, 4)]),  # 4 x 16 = 64: fits
    ([10, 10, 10, 10], 6, 63, [(0, 3), (3, 4)]),
    ([5, 5, 30, 30], 2, 70, [(0, 2), (2, 4)]),  # the long row raises the padded length of the batch
    ([100, 3], 0, 50, [(0, 1), (1, 2)]),  # a row over the bound runs alone
    ([], 4, 10, []),
])
def test_token_bounded_ranges(lens, new, bound, want):
    got = token_bounded_ranges(lens, new, bound)
    assert got == want
    for lo, hi in got:
        assert hi - lo == 1 or (hi - lo) * (max(lens[lo:hi]) + new) <= bound
    assert [i for lo, hi in got for i in range(lo, hi)] == list(range(len(lens)))
