"""One model interface for every study.

``ModelClient`` (``client.py``) offers chat generation, option scoring and
structured (JSON-schema) output on top of a backend (``transformers``,
``vllm`` or ``openai``) and a durable request cache (``cache.py``).
Studies never talk to a backend directly.
"""

from .types import (
    ChatRequest,
    Generation,
    ModelSpec,
    OptionScores,
    ParsedResult,
    SamplingParams,
    ScoreItem,
)
from .cache import RequestCache
from .client import ModelClient, load_client, open_client

__all__ = [
    "ChatRequest",
    "Generation",
    "ModelClient",
    "ModelSpec",
    "OptionScores",
    "ParsedResult",
    "RequestCache",
    "SamplingParams",
    "ScoreItem",
    "load_client",
    "open_client",
]
