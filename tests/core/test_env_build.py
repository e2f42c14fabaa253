"""The conda envs of the rules (``envs/*.yaml``) can be built.

What is checked here, without conda (no conda, mamba or channel is reachable
on the machines that run the tests):

* syntax: every file parses, takes conda-forge, and every conda dependency is
  pinned (``name =version`` or ``name ==version``); every pip line is a plain
  ``name==version`` (pip rejects options such as ``--no-deps`` inside a
  requirements list: those go to ``envs/<env>.post-deploy.sh``, which
  Snakemake runs inside the new env);
* the R packages in the R env are exactly the ones the R code loads;
* (slow) pip resolves each env's pip section against the index this machine's
  pip is configured for (``pip install --dry-run --ignore-installed
  --report``): the pins hold together, every resolved distribution accepts the
  env's Python, every source distribution pip would build is either provided
  prebuilt by the conda section or has no compiled code (the envs carry no
  compiler), and each conda pin of a Python package satisfies what the pip
  packages require of it; the post-deploy installs resolve too.

What cannot be checked offline: that the pinned conda-forge versions (and
builds for this Python / R) exist on the channel, that conda's solver accepts
them together, and that the conda-forge rpy2 build works with the pinned R
(rpy2 3.5.x supports R 4.2-4.4; the local stack runs it with Debian's R 4.2).  That is only shown by building the envs
(``snakemake --sdm conda --conda-create-envs-only``) on a machine that reaches
conda-forge, or by the container (``Dockerfile``).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tarfile
import zipfile
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest
import yaml
from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
ENV_FILES = sorted((ROOT / "envs").glob("*.yaml"))
CONDA_PIN = re.compile(r"^([A-Za-z0-9_.\-]+)\s*(==?)\s*([A-Za-z0-9_.*+!]+)$")
PIP_PIN = re.compile(r"^([A-Za-z0-9_.\-\[\],]+)==([A-Za-z0-9_.+!]+)$")
POST_DEPLOY_PIP = re.compile(r"^python -m pip install --no-deps (.+)$")
COMPILED_SUFFIXES = (".c", ".cc", ".cpp", ".cxx", ".pyx", ".f", ".f90", ".rs", ".cu")
COMPILER_PACKAGES = {"c-compiler", "cxx-compiler", "gcc", "gxx", "compilers", "fortran-compiler"}
# a no-deps post-deploy package's declared dependencies that its code never imports
UNUSED_DECLARED = {"irrcac": {"coverage"}}  # irrCAC imports numpy, pandas, scipy only


def _load(env_file: Path) -> dict:
    env = yaml.safe_load(env_file.read_text())
    assert isinstance(env, dict) and isinstance(env.get("dependencies"), list), (
        f"{env_file.relative_to(ROOT)}: needs a `dependencies:` list")
    return env


def conda_deps(env_file: Path) -> dict[str, str]:
    """conda package name -> pinned version (the assertion names the bad line)."""
    out = {}
    for dep in _load(env_file)["dependencies"]:
        if isinstance(dep, dict):
            continue
        m = CONDA_PIN.match(str(dep).strip())
        assert m, (f"{env_file.relative_to(ROOT)}: conda dependency {dep!r} is not pinned "
                   "(write `name =version`)")
        out[m.group(1).lower()] = m.group(3)
    return out


def pip_deps(env_file: Path) -> list[str]:
    pips = [d["pip"] for d in _load(env_file)["dependencies"] if isinstance(d, dict) and "pip" in d]
    return [str(p).strip() for p in (pips[0] if pips else [])]


def post_deploy(env_file: Path) -> Path:
    return env_file.with_suffix(".post-deploy.sh")


def post_deploy_pins(env_file: Path) -> list[str]:
    script = post_deploy(env_file)
    if not script.exists():
        return []
    pins = []
    for line in script.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#") or line.startswith("set "):
            continue
        m = POST_DEPLOY_PIP.match(line)
        assert m, (f"{script.relative_to(ROOT)}: unexpected line {line!r} "
                   "(only `python -m pip install --no-deps name==version ...`)")
        pins.extend(m.group(1).split())
    return pins


def python_version(env_file: Path) -> str:
    py = conda_deps(env_file).get("python")
    assert py, f"{env_file.relative_to(ROOT)}: pin python"
    return py


@pytest.mark.parametrize("env_file", ENV_FILES, ids=lambda p: p.name)
def test_env_syntax_and_pins(env_file):
    env = _load(env_file)
    rel = env_file.relative_to(ROOT)
    assert env.get("channels", [None])[0] == "conda-forge", f"{rel}: first channel must be conda-forge"
    conda = conda_deps(env_file)
    assert re.fullmatch(r"3\.\d+", python_version(env_file)), f"{rel}: python pin must be `=3.X`"
    pips = pip_deps(env_file)
    if pips:
        assert "pip" in conda, f"{rel}: has a pip section, so pin pip in the conda section"
    names = []
    for line in pips:
        assert not line.startswith("-") and " -" not in line, (
            f"{rel}: pip line {line!r} carries an option, which pip rejects in a requirements list; "
            f"move it to {post_deploy(env_file).relative_to(ROOT)}")
        m = PIP_PIN.match(line.split("#")[0].strip())
        assert m, f"{rel}: pip line {line!r} is not `name==version`"
        names.append(canonicalize_name(m.group(1).split("[")[0]))
    dup = sorted({n for n in names if names.count(n) > 1})
    assert not dup, f"{rel}: pip lists {dup} twice"
    both = sorted(set(names) & {canonicalize_name(c) for c in conda})
    assert not both, f"{rel}: {both} both in the conda and the pip section"
    for pin in post_deploy_pins(env_file):
        assert PIP_PIN.match(pin), f"{post_deploy(env_file).relative_to(ROOT)}: {pin!r} is not `name==version`"


def test_envs_share_one_python():
    versions = {p.name: python_version(p) for p in ENV_FILES}
    assert len(set(versions.values())) == 1, f"envs pin different Pythons: {versions}"


def _r_packages_loaded_by_code() -> set[str]:
    pats = [re.compile(r"library\(\s*['\"]?([A-Za-z0-9.]+)"),
            re.compile(r"require(?:Namespace)?\(\s*['\"]?([A-Za-z0-9.]+)"),
            re.compile(r"importr\(\s*['\"]([A-Za-z0-9.]+)['\"]")]
    found = set()
    for folder in ("src", "scripts", "rules"):
        for f in (ROOT / folder).rglob("*"):
            if f.suffix in (".py", ".R", ".r", ".smk"):
                text = f.read_text()
                for pat in pats:
                    found |= {m.group(1) for m in pat.finditer(text)}
    base = {"stats", "utils", "methods", "base", "graphics", "grDevices", "datasets"}
    return found - base


def test_r_env_lists_the_r_packages_the_code_loads():
    conda = conda_deps(ROOT / "envs" / "r.yaml")
    listed = {n[2:] for n in conda if n.startswith("r-") and n != "r-base"}
    used = {p.lower() for p in _r_packages_loaded_by_code()}
    assert used, "no library()/importr() call found: the R code moved?"
    assert listed == used, f"envs/r.yaml lists R packages {sorted(listed)}, the code loads {sorted(used)}"
    assert "rpy2" in conda, "envs/r.yaml: rpy2 comes prebuilt from conda-forge (no compiler in the env)"
    assert "r-base" in conda


# ---------------------------------------------------------------- slow: pip resolves


def _dry_run(pins: list[str], tmp_path: Path, *extra: str) -> dict:
    report = tmp_path / "report.json"
    cmd = [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet",
           "--report", str(report), *extra, *pins]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    errors = "\n".join(ln for ln in proc.stderr.splitlines() if "is ignored" not in ln)
    assert proc.returncode == 0, f"pip cannot resolve {pins}:\n{errors[-3000:]}"
    return json.loads(report.read_text())


def _has_compiled_code(name: str, version: str, tmp_path: Path) -> list[str]:
    dest = tmp_path / "sdist"
    proc = subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                           "--no-binary", ":all:", "-d", str(dest), f"{name}=={version}"],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"pip download {name}=={version}: {proc.stderr[-2000:]}"
    archive = next(dest.iterdir())
    if archive.suffix == ".zip":
        members = zipfile.ZipFile(archive).namelist()
    else:
        with tarfile.open(archive) as tar:
            members = tar.getnames()
    return [m for m in members if m.lower().endswith(COMPILED_SUFFIXES) or m.endswith("CMakeLists.txt")]


def _requirements_on(report: dict, env_python: str):
    """(requirer, Requirement) for every dependency edge that applies in the env."""
    marker_env = default_environment()
    marker_env.update(python_version=env_python, python_full_version=f"{env_python}.0")
    for item in report["install"]:
        for spec in item["metadata"].get("requires_dist") or []:
            req = Requirement(spec)
            if req.marker is None or req.marker.evaluate({**marker_env, "extra": ""}):
                yield item["metadata"]["name"], req


def _pins(env_file: Path) -> list[str]:
    return [p.split("#")[0].strip() for p in pip_deps(env_file)]


@pytest.fixture(scope="module")
def pip_reports(tmp_path_factory):
    """The pip dry run of every env's pip section, two at a time in the background from the first
    test that asks (each is one pip process, mostly busy on one core: about 25-60 s per env here)."""
    pool = ThreadPoolExecutor(max_workers=2)
    reports: dict[str, Future] = {
        f.name: pool.submit(_dry_run, _pins(f), tmp_path_factory.mktemp(f"pip-{f.stem}"))
        for f in ENV_FILES if _pins(f)}
    yield reports
    pool.shutdown(wait=True, cancel_futures=True)


@pytest.mark.slow
@pytest.mark.parametrize("env_file", ENV_FILES, ids=lambda p: p.name)
def test_env_pip_section_resolves(env_file, tmp_path, pip_reports):
    rel = env_file.relative_to(ROOT)
    env_python = python_version(env_file)
    conda = {canonicalize_name(n): v for n, v in conda_deps(env_file).items()}
    pins = _pins(env_file)
    if not pins:
        pytest.skip(f"{rel} has no pip section")
    report = pip_reports[env_file.name].result()
    resolved = {canonicalize_name(i["metadata"]["name"]): i for i in report["install"]}
    for pin in pins:
        name, version = PIP_PIN.match(pin).groups()
        got = resolved[canonicalize_name(name.split("[")[0])]["metadata"]["version"]
        assert Version(got) == Version(version), f"{rel}: asked {pin}, pip chose {got}"
    py = Version(f"{env_python}.0")
    too_new = [f"{n} {i['metadata']['version']} (Requires-Python {i['metadata']['requires_python']})"
               for n, i in resolved.items()
               if i["metadata"].get("requires_python")
               and not SpecifierSet(i["metadata"]["requires_python"]).contains(py, prereleases=True)]
    assert not too_new, f"{rel}: these do not run on python {env_python}: {too_new}"
    no_compiler = not (COMPILER_PACKAGES & set(conda))
    for n, item in resolved.items():
        if item["download_info"]["url"].endswith(".whl") or n in conda:
            continue
        compiled = _has_compiled_code(n, item["metadata"]["version"], tmp_path / n)
        assert not (compiled and no_compiler), (
            f"{rel}: pip would build {n} {item['metadata']['version']} from source "
            f"(compiled files {compiled[:3]}) and the env has no compiler: take it prebuilt from conda-forge")
    for requirer, req in _requirements_on(report, env_python):
        name = canonicalize_name(req.name)
        if name in conda and req.specifier and name != "python":
            assert req.specifier.contains(conda[name], prereleases=True), (
                f"{rel}: {requirer} requires {req}, the conda section pins {name} ={conda[name]}")
    extra = post_deploy_pins(env_file)
    if extra:
        post = _dry_run(extra, tmp_path, "--no-deps")
        for item in post["install"]:
            name = canonicalize_name(item["metadata"]["name"])
            rp = item["metadata"].get("requires_python")
            assert not rp or SpecifierSet(rp).contains(py, prereleases=True), (
                f"{post_deploy(env_file).relative_to(ROOT)}: {name} needs Python {rp}")
            # its real dependencies must already be in the env (pip installs it without them)
            for spec in item["metadata"].get("requires_dist") or []:
                dep = canonicalize_name(Requirement(spec).name)
                assert dep in resolved or dep in UNUSED_DECLARED.get(name, set()), (
                    f"{post_deploy(env_file).relative_to(ROOT)}: {name} needs {dep}, which {rel} does not install")
