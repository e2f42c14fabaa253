# Sourced by setup/install.sh and setup/vllm_cpu_venv.sh: the pinned lists go into a venv
# through uv, which fetches the wheels in parallel (docs/benchmarks.md, "Install with uv").
#   uv_setup VENV          pip and uv (both pinned) into VENV
#   uvpip VENV ARGS...     `uv pip install ARGS` into VENV; should uv fail (an index only pip
#                          is configured for, say), pip installs the same
# uv reads no pip.conf: it takes the system's CA store for TLS, as pip's `cert` setting does
# here.  It compiles the bytecode at install, as pip does: this environment sets
# PYTHONDONTWRITEBYTECODE=1, so nothing would be compiled and kept at import.
UV_VERSION=0.13.9

uv_setup() { "$1/bin/pip" install -q --upgrade "pip==25.3" "uv==$UV_VERSION"; }

uvpip() {
  local venv=$1
  shift
  "$venv/bin/uv" pip install -q --system-certs --compile-bytecode --python "$venv/bin/python" "$@" || {
    echo "[setup] uv pip install $* failed (exit $?): installing with pip"
    "$venv/bin/pip" install -q "$@"; }
}
