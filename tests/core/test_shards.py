import pandas as pd
import pytest

from cultalign.shards import gather, shard_bounds, shard_rows


@pytest.mark.parametrize("n_rows,n_shards", [(0, 3), (1, 4), (10, 3), (318_720, 64), (7, 7)])
def test_shards_partition_the_rows_in_order(n_rows, n_shards):
    df = pd.DataFrame({"i": range(n_rows)})
    parts = [shard_rows(df, n_shards, f"{s:03d}") for s in range(n_shards)]
    assert sum(len(p) for p in parts) == n_rows
    assert gather(parts)["i"].tolist() == list(range(n_rows))
    sizes = [len(p) for p in parts]
    assert max(sizes) - min(sizes) <= 1


def test_bad_shard_index():
    with pytest.raises(ValueError, match="shard 3 out of range for 3 shards"):
        shard_bounds(10, 3, 3)
