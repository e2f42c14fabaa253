"""pyannote code-path test (NOT a quality test).

No pretrained pyannote weights are reachable here, so this test builds
randomly initialised models of the architectures the pretrained pipeline uses
(PyanNet powerset segmentation, WeSpeakerResNet34 embedding, a random PLDA
for VBx clustering), saves them as checkpoints in the layout of a pretrained
pipeline folder (``segmentation/``, ``embedding/``, ``plda/``, ``config.yaml``),
loads the folder with ``Pipeline.from_pretrained(local_dir)`` through the
project's loader and runs it on a short espeak-ng clip through
``cultalign.audio.diarize.diarize``.  The turns are meaningless; the test
checks that the real pyannote code path runs and that its output is turned
into the project's turns table.
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pytest

from cultalign.audio.diarize import TURN_COLUMNS, diarize, load_pyannote_pipeline, merge_speakers
from cultalign.audio.tts import synthesize
from .monopolet_settings import diarization_settings

pytestmark = pytest.mark.slow
os.environ["PYANNOTE_METRICS_ENABLED"] = "0"


def _save_checkpoint(model, path):
    """A Lightning-style checkpoint as pyannote's Model.from_pretrained reads it."""
    import lightning
    import torch

    path.parent.mkdir(parents=True, exist_ok=True)
    ckpt = {"state_dict": model.state_dict(), "hyper_parameters": dict(model.hparams),
            "pytorch-lightning_version": lightning.__version__}
    model.on_save_checkpoint(ckpt)  # adds pyannote's versions / architecture / specifications
    torch.save(ckpt, path)


def build_random_pipeline(root, duration: float = 5.0):
    """Local pipeline folder with randomly initialised models (seeded)."""
    import torch
    import yaml
    from pyannote.audio.core.task import Problem, Resolution, Specifications
    from pyannote.audio.models.embedding import WeSpeakerResNet34
    from pyannote.audio.models.segmentation import PyanNet

    torch.manual_seed(0)
    seg = PyanNet()
    seg.specifications = Specifications(
        problem=Problem.MONO_LABEL_CLASSIFICATION, resolution=Resolution.FRAME, duration=duration,
        classes=["speaker#1", "speaker#2", "speaker#3"], powerset_max_classes=2, permutation_invariant=True)
    seg.build()
    _save_checkpoint(seg, root / "segmentation" / "pytorch_model.bin")
    emb = WeSpeakerResNet34()
    emb.specifications = Specifications(problem=Problem.REPRESENTATION, resolution=Resolution.CHUNK,
                                        duration=duration)
    emb.build()
    _save_checkpoint(emb, root / "embedding" / "pytorch_model.bin")
    # VBx needs a PLDA: x-vector transform (256 -> 128) and PLDA parameters
    rng = np.random.default_rng(0)
    d, k = 256, 128
    (root / "plda").mkdir()
    np.savez(root / "plda" / "xvec_transform.npz", mean1=rng.normal(size=d), mean2=0.1 * rng.normal(size=k),
             lda=np.linalg.qr(rng.normal(size=(d, k)))[0])
    np.savez(root / "plda" / "plda.npz", mu=0.1 * rng.normal(size=k), tr=np.linalg.qr(rng.normal(size=(k, k)))[0],
             psi=np.sort(rng.uniform(0.5, 5.0, size=k))[::-1].copy())
    config = {
        "dependencies": {"pyannote.audio": "4.0.7"},
        "pipeline": {"name": "pyannote.audio.pipelines.SpeakerDiarization", "params": {
            "segmentation": "$model/segmentation", "embedding": "$model/embedding", "plda": "$model/plda",
            "clustering": "VBxClustering", "segmentation_step": 0.5,
            "segmentation_batch_size": 8, "embedding_batch_size": 8}},
        "params": {"segmentation": {"min_duration_off": 0.0},
                   "clustering": {"threshold": 0.6, "Fa": 0.07, "Fb": 0.8}},
    }
    (root / "config.yaml").write_text(yaml.safe_dump(config))
    return root


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    d = tmp_path_factory.mktemp("clip")
    script = d / "clip.txt"
    script.write_text("# voice A = da 40\n# voice B = da+f3 70\n"
                      "A: Hej og velkommen til programmet.\n"
                      "B: Tak skal du have, det er dejligt at være her.\n", encoding="utf-8")
    turns = synthesize(script, d / "clip.wav", d / "clip.turns.tsv", speed=165)
    return d / "clip.wav", turns


def test_pyannote_codepath_random_local_pipeline(tmp_path, clip):
    from pyannote.audio.pipelines import SpeakerDiarization

    wav, ref_turns = clip
    root = build_random_pipeline(tmp_path / "pipeline")
    pipeline = load_pyannote_pipeline(str(root), token_env=None)  # Pipeline.from_pretrained(local_dir)
    assert isinstance(pipeline, SpeakerDiarization)
    assert pipeline.klustering == "VBxClustering"

    settings = diarization_settings(backend="pyannote", pipeline=str(root), token_env=None, num_speakers=2)
    turns = diarize(wav, settings)
    assert list(turns.columns) == TURN_COLUMNS
    assert len(turns) >= 1
    assert turns["speaker"].str.fullmatch(r"SPEAKER_\d\d").all()
    import soundfile

    duration = soundfile.info(str(wav)).duration
    assert (turns["start"] >= 0).all() and (turns["end"] > turns["start"]).all()
    # pyannote aligns the last turn to its sliding windows: at most one chunk (5 s) past the end
    assert (turns["start"] < duration).all() and (turns["end"] <= duration + 5.0).all()
    # the turns feed the same merge as the resemblyzer backend's
    segs = pd.DataFrame({"start": [0.0, duration / 2], "end": [duration / 2, duration], "text": ["a", "b"]})
    merged = merge_speakers(segs, turns)
    assert set(merged["speaker"]) <= set(turns["speaker"]) | {"UNKNOWN"}


def test_pyannote_codepath_errors_without_pipeline_or_token(tmp_path, monkeypatch):
    with pytest.raises(ValueError, match="monopolet.diarization.pipeline"):
        load_pyannote_pipeline(None)
    monkeypatch.delenv("CULTALIGN_TEST_NO_TOKEN", raising=False)
    with pytest.raises(ValueError, match="CULTALIGN_TEST_NO_TOKEN"):
        load_pyannote_pipeline(str(tmp_path / "not-a-folder"), token_env="CULTALIGN_TEST_NO_TOKEN")
