"""Derived seeds: one function, one join, one width, for every study."""

from __future__ import annotations

import hashlib


def derive_seed(*parts) -> int:
    """A stable 31-bit seed from the master seed and labels (stage, country, item id, ...).

    ``derive_seed(20261129, "pact", "order", 17)``: the parts are joined with
    ``|`` after ``str()``, hashed with SHA-256 and the first 31 bits kept, so
    the result is a valid seed for numpy, torch, vLLM and OpenAI alike.
    """
    if not parts:
        raise ValueError("derive_seed needs at least one part")
    h = hashlib.sha256("|".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(h[:4], "big") & 0x7FFFFFFF
