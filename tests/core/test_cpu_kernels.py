"""oneDNN linear kernel switch of the transformers backend (small modules, no model)."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from cultalign.models.transformers_backend import use_onednn_linear  # noqa: E402


def _net():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.GELU(), torch.nn.Linear(256, 32, bias=False))


def test_onednn_linear_replaces_every_linear_and_keeps_outputs():
    if not torch.backends.mkldnn.is_available():
        pytest.skip("this torch build has no oneDNN")
    net = _net()
    x = torch.randn(3, 5, 64)
    with torch.inference_mode():
        before = net(x)
        assert use_onednn_linear(net) == 2
        after = net(x)
    assert torch.allclose(before, after, rtol=1e-4, atol=1e-5)


def test_onednn_linear_falls_back_when_unavailable(monkeypatch):
    monkeypatch.setattr(torch.backends.mkldnn, "is_available", lambda: False)
    net = _net()
    assert use_onednn_linear(net) == 0
    assert all("forward" not in vars(m) for m in net.modules())


def test_onednn_linear_falls_back_when_the_kernel_disagrees(monkeypatch, caplog):
    class FakeOps:  # a fake oneDNN op that returns wrong numbers
        @staticmethod
        def _linear_pointwise(x, w, b, *args):
            return torch.nn.functional.linear(x, w, b) + 1.0

    monkeypatch.setattr(torch.ops, "mkldnn", FakeOps)
    monkeypatch.setattr(torch.backends.mkldnn, "is_available", lambda: True)
    net = _net()
    assert use_onednn_linear(net) == 0
    assert "relative difference" in caplog.text
    assert all("forward" not in vars(m) for m in net.modules())
