"""What the CPU offers for the transformers backend's weight dtypes (no torch import).

bfloat16 matrix products run natively with AMX tiles (Intel, ``amx_bf16``) or AVX-512 BF16
instructions (``avx512_bf16``: Intel Cooper Lake and later, AMD Zen 4 and later); without
either, torch converts bfloat16 to float32 around every product, which is slower than float32
throughout. ``cpu_features`` reads ``/proc/cpuinfo`` (Linux); elsewhere the flags are unknown.
"""

from __future__ import annotations

import functools
import platform
from pathlib import Path

# flags of /proc/cpuinfo that matter for bfloat16 (and float32) matrix products
FLAGS = ("avx2", "avx512f", "avx512_bf16", "amx_tile", "amx_bf16")


def read_cpuinfo(path: str | Path = "/proc/cpuinfo") -> dict:
    """The CPU's model name and which of ``FLAGS`` it has (``None`` values when the file is unreadable)."""
    try:
        text = Path(path).read_text(errors="replace")
    except OSError:
        return {"model": platform.processor() or None, **{f: None for f in FLAGS}}
    model, flags = None, set()
    for line in text.splitlines():
        key, _, value = line.partition(":")
        key = key.strip()
        if key == "model name" and model is None:
            model = value.strip()
        elif key == "flags" and not flags:
            flags = set(value.split())
    return {"model": model, **{f: f in flags for f in FLAGS}}


def bf16_support(features: dict) -> str:
    """How the CPU multiplies bfloat16 matrices: ``amx``, ``avx512_bf16``, ``emulated`` (neither
    instruction set: converted to float32, slower than float32) or ``unknown`` (flags not readable)."""
    if features.get("amx_bf16") and features.get("amx_tile"):
        return "amx"
    if features.get("avx512_bf16"):
        return "avx512_bf16"
    if features.get("avx512_bf16") is None:
        return "unknown"
    return "emulated"


@functools.cache
def cpu_features() -> dict:
    """This machine's ``read_cpuinfo`` plus ``bf16``: its ``bf16_support`` (read once per process)."""
    feats = read_cpuinfo()
    return {**feats, "bf16": bf16_support(feats)}


def precision_record(dtype: str, device: str = "cpu") -> dict:
    """What a job records about the precision it computes in: the configured dtype, the device and,
    on the CPU, the CPU's model and bfloat16 support (``bf16_support``)."""
    rec = {"dtype": dtype, "device": device}
    if device == "cpu":
        feats = cpu_features()
        rec.update(cpu=feats["model"], cpu_bf16=feats["bf16"])
    return rec
