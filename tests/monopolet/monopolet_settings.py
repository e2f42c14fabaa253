"""The monopolet settings dataclasses at their config defaults (read from the
schema, where defaults live), with a test's own values on top."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from cultalign.audio.diarize import DiarizationSettings
from cultalign.audio.transcribe import WhisperSettings
from cultalign.config import load_schema
from cultalign.monopolet.mapping import MappingSettings
from cultalign.monopolet.matching import JudgeSettings, PrefilterSettings


@lru_cache(maxsize=None)
def _schema() -> dict:
    return load_schema()


def _defaults(node: dict) -> Any:
    if node.get("type") == "object" and "properties" in node:
        return {k: _defaults(v) for k, v in node["properties"].items()}
    return node.get("default")


def schema_defaults(key: str) -> Any:
    """The default of config key ``key`` (dotted), an object's from its properties' defaults."""
    node = _schema()
    for part in key.split("."):
        node = node["properties"][part]
    return _defaults(node)


def judge_settings(**values) -> JudgeSettings:
    return JudgeSettings.from_config({**schema_defaults("monopolet.judge"), **values})


def prefilter_settings(**values) -> PrefilterSettings:
    return PrefilterSettings(**{**schema_defaults("monopolet.judge.prefilter"), **values})


def mapping_settings(**values) -> MappingSettings:
    return MappingSettings.from_config({**schema_defaults("monopolet.mapping"), **values})


def whisper_settings(**values) -> WhisperSettings:
    return WhisperSettings.from_config({**schema_defaults("monopolet.transcription"), **values})


def diarization_settings(**values) -> DiarizationSettings:
    return DiarizationSettings.from_config({**schema_defaults("monopolet.diarization"), "num_speakers": None,
                                            **values})
