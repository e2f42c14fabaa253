"""The benchmarks' structure (bench/): what they share lives in bench/common.py, they do not
import one another in a circle nor the tests' conftest, and the OpenMP policy is set in one
place (cultalign.core.environment)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"


def _imports(path: Path) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out.add(node.module.split(".")[0])
    return out


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of ``graph`` (module -> modules it imports), or None."""
    state: dict[str, int] = {}

    def visit(m, path):
        state[m] = 1
        for n in sorted(graph.get(m, ())):
            if state.get(n) == 1:
                return [*path, m, n]
            if n not in state and (found := visit(n, [*path, m])):
                return found
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state and (found := visit(m, [])):
            return found
    return None


def test_benchmarks_share_common_and_import_no_tests():
    mods = {p.stem: p for p in BENCH.glob("*.py")}
    graph = {m: _imports(p) & set(mods) for m, p in mods.items()}
    assert "common" in mods and not graph["common"]
    assert _cycle(graph) is None, f"benchmarks import each other in a circle: {_cycle(graph)}"
    assert not [m for m, p in mods.items() if "conftest" in _imports(p)], "a benchmark imports the tests' conftest"
    path_edits = [m for m, p in mods.items() if m != "common" and "sys.path" in p.read_text()]
    assert not path_edits, f"import paths are set in bench/common.py only: {path_edits}"


def test_the_cycle_finder_sees_a_cycle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_one_place_sets_the_openmp_policy():
    files = [*(ROOT / "src").rglob("*.py"), *BENCH.glob("*.py"), *(ROOT / "tests").rglob("*.py"),
             *(ROOT / "rules").rglob("*.smk"), ROOT / "Snakefile", *(ROOT / "scripts").rglob("*.py")]
    setting = re.compile(r"""(environ(\.setdefault\(|\[)|^export |env\w*\[)\s*["']?OMP_WAIT_POLICY""", re.M)
    found = sorted(str(f.relative_to(ROOT)) for f in files
                   if f != Path(__file__) and setting.search(f.read_text()))
    assert found == ["src/cultalign/core/environment.py"], found
