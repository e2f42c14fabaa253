"""oneDNN linear kernel switch of the transformers backend (small modules, no model)."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from cultalign.models.transformers_backend import use_onednn_linear  # noqa: E402


def _net():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.GELU(), torch.nn.Linear(256, 32, bias=False))


def _switched_net():
    """A small net switched to the oneDNN kernel (every linear), its outputs unchanged."""
    net = _net()
    x = torch.randn(3, 5, 64)
    with torch.inference_mode():
        before = net(x)
        assert use_onednn_linear(net) == 2
        after = net(x)
    assert torch.allclose(before, after, rtol=1e-4, atol=1e-5)
    return net


def test_onednn_linear_replaces_every_linear_and_keeps_outputs():
    if not torch.backends.mkldnn.is_available():
        pytest.skip("this torch build has no oneDNN")
    net = _switched_net()
    # weights reordered once for the kernel, kept outside the parameters
    assert all(m.onednn_weight.is_mkldnn for m in net if isinstance(m, torch.nn.Linear))
    assert sorted(net.state_dict()) == ["0.bias", "0.weight", "2.weight"]


def test_onednn_linear_keeps_weights_as_stored_when_they_cannot_be_reordered(monkeypatch, caplog):
    if not torch.backends.mkldnn.is_available():
        pytest.skip("this torch build has no oneDNN")
    real = torch.ops.mkldnn._linear_pointwise

    class FakeOps:  # a fake oneDNN namespace: the real kernel, but no weight reordering
        _linear_pointwise = real

        @staticmethod
        def _reorder_linear_weight(w, rows):
            raise RuntimeError("no reorder here")

    monkeypatch.setattr(torch.ops, "mkldnn", FakeOps)
    caplog.set_level("INFO")
    net = _switched_net()
    assert "not reordered (RuntimeError: no reorder here)" in caplog.text
    assert not any(hasattr(m, "onednn_weight") for m in net.modules())


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
