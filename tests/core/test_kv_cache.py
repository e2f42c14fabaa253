"""The decoding loop's KV cache layer (``growing_kv_layer``) against transformers' ``DynamicLayer``
(small tensors, no model): the same keys and values after prefill, decode steps, rows leaving the
batch, growth past the preallocated room and cropping."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from transformers.cache_utils import DynamicLayer  # noqa: E402

from cultalign.models.transformers_backend import growing_kv_layer  # noqa: E402


def _states(batch, tokens, seed):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(batch, 3, tokens, 8, generator=g), torch.randn(batch, 3, tokens, 8, generator=g)


def _same(a, b):
    assert a.get_seq_length() == b.get_seq_length()
    assert torch.equal(a.keys, b.keys) and torch.equal(a.values, b.values)


@pytest.mark.parametrize("room", [0, 2, 10])  # no room (grows at once), too little (grows later), enough
def test_growing_layer_holds_what_a_dynamic_layer_holds(room):
    k, v = _states(4, 5, seed=0)
    ref = DynamicLayer()
    ref.update(k, v)
    buf_k = torch.zeros(4, 3, 5 + room, 8)
    buf_v = torch.zeros(4, 3, 5 + room, 8)
    buf_k[..., :5, :], buf_v[..., :5, :] = k, v
    layer = growing_kv_layer(buf_k, buf_v, 5)
    _same(layer, ref)
    rows = 4
    for step in range(6):
        if step == 3:  # rows 0 and 2 leave the batch
            sel = torch.tensor([1, 3])
            layer.batch_select_indices(sel)
            ref.batch_select_indices(sel)
            rows = 2
        nk, nv = _states(rows, 1, seed=step + 1)
        got = layer.update(nk, nv)
        want = ref.update(nk, nv)
        assert torch.equal(got[0], want[0]) and torch.equal(got[1], want[1])
        _same(layer, ref)
    assert layer.get_seq_length() == 11
    layer.crop(-2)
    ref.crop(-2)
    _same(layer, ref)
    with pytest.raises(ValueError):
        layer.crop(3)


def test_growing_layer_writes_in_place_within_its_room():
    k, v = _states(2, 3, seed=7)
    buf_k, buf_v = torch.zeros(2, 3, 8, 8), torch.zeros(2, 3, 8, 8)
    buf_k[..., :3, :], buf_v[..., :3, :] = k, v
    layer = growing_kv_layer(buf_k, buf_v, 3)
    nk, nv = _states(2, 1, seed=8)
    layer.update(nk, nv)
    assert torch.equal(buf_k[..., 3:4, :], nk) and torch.equal(buf_v[..., 3:4, :], nv)  # no copy of the cache
    assert layer.keys.data_ptr() == buf_k.data_ptr()


def test_growing_layer_reset_empties_it_and_keeps_its_buffers():
    k, v = _states(2, 3, seed=9)
    buf_k, buf_v = torch.zeros(2, 3, 6, 8), torch.zeros(2, 3, 6, 8)
    buf_k[..., :3, :], buf_v[..., :3, :] = k, v
    layer = growing_kv_layer(buf_k, buf_v, 3)
    layer.reset()
    assert layer.get_seq_length() == 0
    nk, nv = _states(2, 2, seed=10)
    keys, values = layer.update(nk, nv)
    assert torch.equal(keys, nk) and torch.equal(values, nv) and keys.data_ptr() == buf_k.data_ptr()
