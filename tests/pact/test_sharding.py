"""Behaviour shards: contiguous slices of the conditions, gathered back in the unsharded order."""

import pandas as pd

from cultalign.pact import analysis, behaviour, expand
from cultalign.pact.labels import ALLOW, FOLLOW, UNKNOWN


def _instances():
    sc = pd.DataFrame({"scenario_id": [f"normad-{i}" for i in range(3)], "source": "normad",
                       "country": ["India", "Peru", "Japan"], "personal_preference": ["save time", "diet", "x"]})
    return expand.expand(sc, seed=3, combinations_per_scenario=2).astype({"culture_is_A": str})


def test_shards_in_shard_order_restore_the_condition_order(tmp_path):
    inst = _instances()
    grid = (["C1", "C2", "C3"], ["full_demo", "no_demo"], ["balance", "no_balance"])
    whole = behaviour.shard_conditions(inst, *grid, 0, 1)
    assert len(whole) == 6 * 12
    paths = []
    for k in range(4):
        part = behaviour.shard_conditions(inst, *grid, f"{k:03d}", 4)
        assert len(part) in (len(whole) // 4, len(whole) // 4 + 1)
        part = part.assign(valid=True, decision=[(FOLLOW, ALLOW, UNKNOWN)[i % 3] for i in range(len(part))],
                           attempts=1, raw_output="Answer: A")
        path = tmp_path / "m" / f"shard_{k:03d}.tsv"
        path.parent.mkdir(exist_ok=True)
        part.to_csv(path, sep="\t", index=False)
        paths.append(str(path))
    gathered = analysis.gather_decisions(paths, {"m": "instruct"})
    assert gathered["condition_id"].tolist() == whole["condition_id"].tolist()
    assert (gathered["model"] == "m").all() and (gathered["model_kind"] == "instruct").all()
