import pandas as pd
import pytest

from cultalign.core.shards import gather, select, shard_bounds, shard_ids


@pytest.mark.parametrize("n_rows,n_shards", [(0, 3), (1, 4), (10, 3), (318_720, 64), (7, 7)])
def test_shards_partition_the_rows_in_order(n_rows, n_shards):
    df = pd.DataFrame({"i": range(n_rows)})
    parts = [select(df, s, n_shards) for s in shard_ids(n_shards)]
    assert sum(len(p) for p in parts) == n_rows
    assert gather(parts)["i"].tolist() == list(range(n_rows))
    sizes = [len(p) for p in parts]
    assert max(sizes) - min(sizes) <= 1


def test_bad_shard_index():
    with pytest.raises(ValueError, match="shard 3 out of range for 3 shards"):
        shard_bounds(10, 3, 3)
    with pytest.raises(ValueError):
        shard_ids(0)


def test_gather_skips_empty_shards():
    assert gather([pd.DataFrame(), pd.DataFrame({"a": [1]})])["a"].tolist() == [1]
