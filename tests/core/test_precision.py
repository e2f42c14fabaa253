"""The transformers backend's precision: the CPU's bfloat16 support (log, provenance, cache key) and the
check of compiled decoding against eager decoding (logic only; no model)."""

from __future__ import annotations

import logging

import pytest

from cultalign.models import cpu
from cultalign.models.cache import request_key
from cultalign.models.types import ModelSpec

EPYC = """processor\t: 0
vendor_id\t: AuthenticAMD
model name\t: AMD EPYC 9654 96-Core Processor
flags\t\t: fpu sse2 avx2 avx512f avx512bw avx512_bf16 avx512_vnni
processor\t: 1
model name\t: AMD EPYC 9654 96-Core Processor
flags\t\t: fpu sse2 avx2 avx512f avx512bw avx512_bf16 avx512_vnni
"""
XEON = ("model name\t: Intel(R) Xeon(R) Platinum 8480+\n"
        "flags\t\t: fpu avx2 avx512f avx512_bf16 amx_bf16 amx_tile amx_int8\n")
OLD = "model name\t: Intel(R) Xeon(R) CPU E5-2680 v4\nflags\t\t: fpu sse2 avx avx2\n"


@pytest.mark.parametrize("text, support, model", [
    (EPYC, "avx512_bf16", "AMD EPYC 9654 96-Core Processor"),
    (XEON, "amx", "Intel(R) Xeon(R) Platinum 8480+"),
    (OLD, "emulated", "Intel(R) Xeon(R) CPU E5-2680 v4"),
])
def test_bf16_support_from_cpuinfo(tmp_path, text, support, model):
    path = tmp_path / "cpuinfo"
    path.write_text(text)
    feats = cpu.read_cpuinfo(path)
    assert feats["model"] == model
    assert cpu.bf16_support(feats) == support


def test_unreadable_cpuinfo_gives_unknown_support(tmp_path):
    feats = cpu.read_cpuinfo(tmp_path / "missing")
    assert feats["avx512_bf16"] is None
    assert cpu.bf16_support(feats) == "unknown"


def test_precision_note_warns_for_emulated_bfloat16(monkeypatch, caplog):
    from cultalign.models.transformers_backend import precision_note

    monkeypatch.setattr(cpu, "cpu_features", lambda: {"model": "Old CPU", "bf16": "emulated"})
    caplog.set_level(logging.INFO)
    rec = precision_note("m", "cpu", "bfloat16")
    assert rec == {"dtype": "bfloat16", "device": "cpu", "cpu": "Old CPU", "cpu_bf16": "emulated"}
    warned = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert warned and "bfloat16 support: emulated" in warned[0].getMessage()
    caplog.clear()
    precision_note("m", "cpu", "float32")  # float32 needs no bfloat16 instructions
    assert not [r for r in caplog.records if r.levelno == logging.WARNING]


def test_bfloat16_is_part_of_the_cache_key_float32_keys_unchanged():
    f32 = ModelSpec(name="m", path="x", dtype="float32")
    auto = ModelSpec(name="m", path="x", dtype="auto")
    bf16 = ModelSpec(name="m", path="x", dtype="bfloat16")
    payload = {"prompt": "p", "params": {"temperature": 0.0}}
    assert f32.identity() == auto.identity() == {"model_id": "m", "revision": "local", "backend": "transformers"}
    assert request_key("generate", bf16.identity(), payload) != request_key("generate", f32.identity(), payload)
    # vLLM runs the checkpoint's dtype (bfloat16 at paper scale) as it always did: its keys stay as they were
    for backend in ("vllm", "openai"):
        assert "dtype" not in ModelSpec(name="m", backend=backend, dtype="bfloat16").identity()


def test_provenance_records_precision_without_loading_the_model(tmp_path):
    from cultalign.models import ModelClient

    client = ModelClient(ModelSpec(name="m", path=str(tmp_path), dtype="bfloat16", compile=True, chat_template="plain"))
    rec = client.provenance()
    assert client._backend is None
    assert rec["precision"]["dtype"] == "bfloat16" and rec["compile"] is True
    assert rec["precision"]["cpu_bf16"] == cpu.cpu_features()["bf16"]


class FakeCompiledBackend:
    """Stands in for TransformersBackend around ``_compiled_check``: its decoding loop gives ``eager`` through
    the model and ``compiled`` through any other step function."""

    def __init__(self, eager, compiled, fail=False):
        from cultalign.models.transformers_backend import TransformersBackend

        import torch

        self.spec = ModelSpec(name="m", path="x", compile=True)
        self.model = torch.nn.Sequential(torch.nn.Linear(8, 4))  # one real layer for the kernel switch
        self.device, self.linear_kernel = "cpu", "torch"
        self._step, self._compiled_ok = self.model, None
        self.eager, self.compiled, self.fail = eager, compiled, fail
        self._compiled_check = TransformersBackend._compiled_check.__get__(self)
        self._choose_linear_kernel = TransformersBackend._choose_linear_kernel.__get__(self)

    def _decode_loop(self, ids, params, seeds, schema=None):
        if self._step is self.model:
            return self.eager, []
        if self.fail:
            raise RuntimeError("backend='inductor' raised:\nsome context\nCompileError: no C++ compiler")
        return self.compiled, []


@pytest.mark.parametrize("compiled, fail, kept, says", [
    ([[1, 2], [3, 4]], False, True, "compiled decoding in use"),
    ([[1, 2], [3, 5]], False, False, "1 of 2 rows decode other tokens"),
    ([[1, 2], [3, 4]], True, False, "RuntimeError: backend='inductor' raised: CompileError: no C++ compiler"),
])
def test_compiled_decoding_is_kept_only_with_the_eager_tokens(monkeypatch, caplog, compiled, fail, kept, says):
    torch = pytest.importorskip("torch")
    monkeypatch.setattr(torch, "compile", lambda fn, **kw: (lambda **k: fn(**k)))  # a fake compiler
    caplog.set_level(logging.INFO)
    eager = [[1, 2], [3, 4]]
    b = FakeCompiledBackend(eager, compiled, fail)
    assert b._compiled_check([[9], [9]], None, [0, 0], None, eager) == eager
    assert b._compiled_ok is kept
    assert (b._step is b.model) is not kept
    assert says in caplog.text
    # kept: torch's kernel, the one inductor compiled; not kept: the eager run's oneDNN kernel again
    onednn = torch.backends.mkldnn.is_available()
    assert b.linear_kernel == ("onednn" if onednn and not kept else "torch")
    if onednn and not kept:
        x = torch.randn(3, 8)
        with torch.inference_mode():
            assert torch.allclose(b.model(x), torch.nn.functional.linear(x, b.model[0].weight, b.model[0].bias),
                                  atol=1e-5)
