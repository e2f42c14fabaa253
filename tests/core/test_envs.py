"""Each rule's conda env file covers the imports of its script (and of the package code it reaches)."""

from __future__ import annotations

import ast
import re
import sys
from functools import lru_cache
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"
# model rules choose their env by backend (rules/common.smk: model_env)
MODEL_ENVS = ["envs/llm.yaml", "envs/vllm.yaml"]
MODEL_ENV_FUNCS = {"model_env", "env_of_model"}
# package modules that only run with one env's backend
BACKEND_MODULES = {"envs/vllm.yaml": {"cultalign.models.transformers_backend"},
                   "envs/llm.yaml": {"cultalign.models.vllm_backend"}}
# reached only when a script builds a model client (open_client / load_client)
MODEL_ONLY_MODULES = {"cultalign.models"}


def rules_with_scripts():
    out = []
    for smk in sorted((ROOT / "rules").rglob("*.smk")):
        text = smk.read_text()
        for block in re.split(r"\n(?=rule |checkpoint )", text):
            m = re.match(r"(?:rule|checkpoint) (\w+):", block)
            if not m:
                continue
            script = re.search(r"\n\s+script:\s*\n\s+\"([^\"]+)\"", block)
            conda = re.search(r"\n\s+conda:\s*\n\s+(\"[^\"]+\"|\w+)", block)
            runs = re.search(r"\n\s+(script|shell|run|notebook|wrapper):", block) is not None
            out.append((str(smk.relative_to(ROOT / "rules")), m.group(1), script and script.group(1),
                        conda and conda.group(1), runs))
    return out


def _module_file(mod: str) -> Path | None:
    rel = Path(*mod.split("."))
    for cand in (SRC / rel.with_suffix(".py"), SRC / rel / "__init__.py"):
        if cand.exists():
            return cand
    return None


def third_party_imports(path: Path, skip: set[str]) -> set[str]:
    seen: set[str] = set()
    found: set[str] = set()
    todo = [path]
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        tree = ast.parse(p.read_text())
        pkg = None
        if SRC in p.parents:
            parts = p.relative_to(SRC).with_suffix("").parts
            pkg = ".".join(parts[:-1]) if parts[-1] != "__init__" else ".".join(parts[:-1])
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level and pkg is not None:
                    base = pkg.split(".")
                    base = base[: len(base) - node.level + 1]
                    mod = ".".join(base + ([node.module] if node.module else []))
                    names = [mod] + [f"{mod}.{a.name}" for a in node.names]
                elif node.module:
                    names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            for name in names:
                top = name.split(".")[0]
                if top == "cultalign":
                    if any(name == s or name.startswith(s + ".") for s in skip):
                        continue
                    f = _module_file(name)
                    if f:
                        todo.append(f)
                elif top not in sys.stdlib_module_names and top != "__future__":
                    found.add(top)
    return found


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def env_packages(env_file: Path) -> set[str]:
    env = yaml.safe_load(env_file.read_text())
    pkgs = set()
    for dep in env.get("dependencies", []):
        if isinstance(dep, dict):
            for pip_dep in dep.get("pip", []):
                pkgs.add(_norm(re.split(r"[=<>!~ \[]", pip_dep.strip())[0]))
        else:
            pkgs.add(_norm(re.split(r"[=<>!~ ]", dep.strip())[0]))
    # installed by Snakemake's post-deploy script beside the env file (pip --no-deps)
    post = env_file.with_suffix(".post-deploy.sh")
    if post.exists():
        for m in re.finditer(r"pip install --no-deps (.+)", post.read_text()):
            pkgs |= {_norm(re.split(r"[=<>!~]", p)[0]) for p in m.group(1).split()}
    return pkgs


RULES = rules_with_scripts()


@lru_cache(maxsize=1)
def _distributions() -> dict[str, list[str]]:
    """Import name -> distributions of the test venv (read once: each scan of the venv's
    metadata takes about a second, and the test below runs once per script rule)."""
    return packages_distributions()


def test_rules_were_found():
    assert len(RULES) >= 4
    # every rule that runs code has an env (target-only rules with just `input:` run nothing)
    no_env = [f"{f}:{r}" for f, r, s, c, runs in RULES if runs and c is None]
    assert not no_env, f"rules without conda: {no_env}"


@pytest.mark.parametrize("smk,rule,script,conda", [r[:4] for r in RULES if r[2]], ids=lambda x: str(x))
def test_env_covers_script_imports(smk, rule, script, conda):
    dists = _distributions()
    here = (ROOT / "rules" / smk).parent
    envs = MODEL_ENVS if conda in MODEL_ENV_FUNCS else [str((here / conda.strip('"')).resolve().relative_to(ROOT))]
    script_path = (here / script).resolve()
    text = script_path.read_text()
    uses_model = "open_client" in text or "load_client" in text
    if uses_model:
        assert conda in MODEL_ENV_FUNCS, (
            f"{smk}:{rule} calls a model: use `conda: model_env` or `conda: env_of_model(<role model>)` "
            "(backend-specific env)")
    for env in envs:
        env_file = ROOT / env
        assert env_file.exists(), f"{smk}:{rule}: env file {env} missing"
        have = env_packages(env_file)
        skip = BACKEND_MODULES.get(env, set()) if uses_model else MODEL_ONLY_MODULES
        needed = third_party_imports(script_path, skip)
        missing = []
        for mod in sorted(needed):
            cands = {_norm(d) for d in dists.get(mod, [mod])}
            if not cands & have:
                missing.append(f"{mod} (pip: {'/'.join(sorted(cands))})")
        assert not missing, f"{smk}:{rule} ({script}) imports not covered by {env}: {missing}"


def _rule_blocks():
    for smk in sorted((ROOT / "rules").rglob("*.smk")):
        for block in re.split(r"\n(?=rule |checkpoint )", smk.read_text()):
            m = re.match(r"(?:rule|checkpoint) (\w+):", block)
            if m:
                yield smk.name, m.group(1), block


def test_model_env_only_where_the_model_is_a_wildcard():
    """`model_env` reads {model}; a rule whose model comes from a config role
    (construction model, judge, extractor) must name it with env_of_model(...),
    or at paper scale it would get the default model's env (e.g. vLLM's for an
    OpenAI judge)."""
    wrong = []
    for smk, rule, block in _rule_blocks():
        if not re.search(r"\n\s+conda:\s*\n\s+model_env\s*\n", block):
            continue
        out = re.search(r"\n    output:(.*?)\n    \w+:", block, re.S)
        if out is None or "{model}" not in out.group(1):
            wrong.append(f"{smk}:{rule}")
    assert not wrong, f"rules with conda: model_env but no {{model}} wildcard: {wrong}"
