"""The opt-in CPU build of torch in ``setup/install.sh`` (``CULTALIGN_TORCH_INDEX``).

With the variable set, the script installs torch, torchaudio and torchcodec from that index and the
rest of ``requirements/cpu.txt`` without the CUDA builds and their libraries.  The filter is the
script's own regular expression, read from it; the test checks it drops exactly those packages, so a
pin added later (a ``torch*`` package that is not a CUDA build, say) is not lost silently.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "setup" / "install.sh"


def _script_value(name: str) -> str:
    m = re.search(rf"^{name}=(.+)$", SCRIPT.read_text(), re.M)
    assert m, f"{name} not set in {SCRIPT}"
    return m.group(1).strip().strip("'\"")


def _pins() -> list[str]:
    lines = (ROOT / "requirements" / "cpu.txt").read_text().splitlines()
    return [ln for ln in lines if ln and not ln.startswith("#")]


def test_the_cpu_torch_filter_drops_the_cuda_builds_and_nothing_else():
    pattern = re.compile(_script_value("CUDA_BUILD_PACKAGES"))
    dropped = {ln.split("==")[0] for ln in _pins() if pattern.search(ln)}
    assert {"torch", "torchaudio", "torchcodec", "triton"} <= dropped
    assert any(p.startswith("nvidia-") for p in dropped) and any(p.startswith("cuda-") for p in dropped)
    kept = {ln.split("==")[0] for ln in _pins() if not pattern.search(ln)}
    # packages named like torch that are plain Python on top of it stay in the pinned set
    assert {"torchmetrics", "torch-audiomentations", "torch_pitch_shift", "pyannote-audio"} <= kept
    assert not {p for p in dropped if not re.match(r"(torch|torchaudio|torchcodec|triton|nvidia-|cuda-)", p)}


def test_the_packages_taken_from_the_index_are_the_pinned_versions():
    packages = dict(spec.split("==") for spec in _script_value("CULTALIGN_TORCH_PACKAGES").split(":-")[1]
                    .strip("}\"").split())
    pins = dict(ln.split("==") for ln in _pins())
    assert packages == {k: pins[k] for k in ("torch", "torchaudio", "torchcodec")}


def test_the_install_script_parses():
    assert subprocess.run(["bash", "-n", str(SCRIPT)]).returncode == 0
