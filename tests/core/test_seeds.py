"""Every random draw of the package and the rule scripts takes its seed from
``derive_seed(seed, study, stage, item...)`` (docs/architecture.md, "seeds"): a scan of the
source for the calls that seed a generator, and for draws from a global random state."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
STUDIES = {"pact", "personas", "monopolet"}
# a study's stages: its rule files rules/<study>/<stage>.smk (demo.smk: the rules of its demo inputs)
STAGES = {s: {f.stem for f in (ROOT / "rules" / s).glob("*.smk")} - {"common", "main", "targets"} for s in STUDIES}
# calls that take a seed: numpy's generators, the random module's, torch's
SEEDING = {"default_rng", "RandomState", "Random", "manual_seed", "seed", "SeedSequence", "PCG64"}
# draws that are not seeded by the project, with the reason they may stay so
ALLOWED = {
    # retry back-off jitter of a hosted API: spreads retries in time, changes no result
    ("src/cultalign/models/openai_backend.py", "random.random"),
    # one generator per request, seeded with the request's own seed (set by the study's code)
    ("src/cultalign/models/transformers_backend.py", "manual_seed"),
}


def _name(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_name(node.value)}.{node.attr}"
    return "()" if isinstance(node, ast.Call) else ""


def _derived(node: ast.AST | None) -> bool:
    """``derive_seed(seed, "<study>", "<stage>", ...)`` with the study and one of its stages spelled out."""
    if not (isinstance(node, ast.Call) and _name(node.func).endswith("derive_seed") and len(node.args) >= 3):
        return False
    study, stage = node.args[1], node.args[2]
    return (isinstance(study, ast.Constant) and study.value in STUDIES
            and isinstance(stage, ast.Constant) and stage.value in STAGES[study.value])


def seed_problems(path: Path, rel: str) -> list[str]:
    """The lines of ``path`` that seed a generator without a derived seed or draw from a global state."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(), filename=rel)):
        if isinstance(node, ast.Attribute) and _name(node) in {"random.random", "random.choice", "random.shuffle",
                                                                "random.randint", "random.sample", "random.uniform"}:
            if (rel, _name(node)) not in ALLOWED:
                out.append(f"{rel}:{node.lineno}: {_name(node)} draws from the global random state")
        if not isinstance(node, ast.Call):
            continue
        name = _name(node.func)
        if name.endswith("derive_seed") and not _derived(node):
            out.append(f"{rel}:{node.lineno}: derive_seed(...) without a study and one of its stages after the seed")
        if name.startswith(("np.random.", "numpy.random.")) and name.rsplit(".", 1)[1] not in SEEDING | {"Generator"}:
            out.append(f"{rel}:{node.lineno}: {name} draws from numpy's global random state")
            continue
        last = name.rsplit(".", 1)[-1]
        seeds = [k.value for k in node.keywords if k.arg == "random_state"]
        if last in SEEDING and (name.startswith(("np.", "numpy.", "random.", "torch.")) or last == "manual_seed"):
            if (rel, last) in ALLOWED:
                continue
            seeds.append(node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "seed"),
                                                                None))
        out += [f"{rel}:{node.lineno}: {name}(...) is seeded without derive_seed(seed, study, stage, ...)"
                for s in seeds if not _derived(s)]
    return out


def _sources() -> list[Path]:
    return sorted([*(ROOT / "src").rglob("*.py"), *(ROOT / "scripts").rglob("*.py")])


def test_every_draw_takes_a_derived_seed():
    problems = [p for f in _sources() for p in seed_problems(f, f.relative_to(ROOT).as_posix())]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("code, bad", [
    ("rng = np.random.default_rng(seed)", True),
    ("df.sample(n=3, random_state=seed)", True),
    ("TSNE(random_state=derive_seed(seed, 'x', 'analysis'))", True),  # no study
    ("s = derive_seed(seed, 'oeg', item)", True),  # a request seed without study and stage
    ("s = derive_seed(seed, 'pact', 'order', item)", True),  # not a stage of pact
    ("x = np.random.rand(3)", True),
    ("random.shuffle(xs)", True),
    ("torch.manual_seed(1)", True),
    ("rng = np.random.default_rng(derive_seed(seed, 'pact', 'behaviour', 'rates', f))", False),
    ("df.sample(n=3, random_state=derive_seed(seed, 'monopolet', 'analysis', 'x'))", False),
    ("def f(rng: np.random.Generator): pass", False),
])
def test_the_scan_sees_a_bare_seed(tmp_path, code, bad):
    f = tmp_path / "m.py"
    f.write_text(code + "\n")
    assert bool(seed_problems(f, "m.py")) is bad


class FakeRecordingClient:
    """Fake of ModelClient.generate_parsed: records the requests and answers each with ``answer``."""

    def __init__(self, answer: str):
        self.answer, self.requests = answer, []
        self.spec = type("Spec", (), {"name": "fake"})()

    def generate_parsed(self, reqs, parse, max_attempts=None):
        from cultalign.models import ParsedResult

        self.requests += reqs
        return [ParsedResult(parse(self.answer), True, self.answer, []) for _ in reqs]


def test_sampled_requests_draw_their_own_streams():
    """Each PACT condition and each Monopolet dilemma samples with a seed of its own (one shared
    seed gave every request the same random stream)."""
    import pandas as pd

    from cultalign.core.seeds import derive_seed
    from cultalign.models import SamplingParams
    from cultalign.monopolet.answers import generate_answers
    from cultalign.pact import behaviour, expand

    sc = pd.DataFrame([{"scenario_id": "t1", "source": "normad", "country": "India", "scenario": "A dinner.",
                        "cultural_expectation": "Wait.", "personal_preference": "Eat.",
                        "preference_type": "convenience", "culture_option": "Wait", "preference_option": "Eat"}])
    conds = expand.conditions(expand.expand(sc, seed=4, combinations_per_scenario=2), ["C1", "C3"], ["full_demo"],
                              ["balance"])
    params = SamplingParams(temperature=0.3, top_p=0.9, max_new_tokens=12, seed=7)
    client = FakeRecordingClient("A")
    behaviour.run_generation(conds, client, params)
    seeds = [r.params.seed for r in client.requests]
    assert len(set(seeds)) == len(conds) > 1
    assert seeds[0] == derive_seed(7, "pact", "behaviour", conds["condition_id"].iloc[0])

    d = pd.DataFrame({"dilemma_id": ["d1", "d2", "d3"], "dilemma": ["x", "y", "z"], "valid": [True, True, True]})
    client = FakeRecordingClient("Talk to them.")
    generate_answers(client, d, params)
    assert [r.params.seed for r in client.requests] == [derive_seed(7, "monopolet", "text", "answers", i)
                                                        for i in d["dilemma_id"]]
