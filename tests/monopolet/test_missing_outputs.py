"""Outputs of the paper that were missing (issue 11, item 9): each from the study's own functions."""

from __future__ import annotations

import numpy as np
import pytest

from cultalign.monopolet import figures
from cultalign.monopolet.metrics import eaa_grid


def test_figure9_grid_is_the_papers_and_uses_the_eaa_definition(tmp_path):
    grid = eaa_grid([2, 6, 10, 20, 40, 100], steps=11)
    assert sorted(grid["r_cand"].unique()) == [2, 6, 10, 20, 40, 100]
    assert len(grid) == 6 * 11 * 11
    g = grid.set_index(["r_cand", "intersection_ratio", "same_stance_ratio"])
    # 10 candidates, half matched (5 pairs), 3 of them with the same stance: EAA 3/5, SAA 3/20
    assert g.loc[(10, 0.5, 0.6), "EAA"] == pytest.approx(0.6)
    assert g.loc[(10, 0.5, 0.6), "SAA"] == pytest.approx(3 / 20)
    # nothing matched: EAA undefined; EAA follows the stance ratio, not the output length
    assert np.isnan(g.loc[(40, 0.0, 0.5), "EAA"])
    assert {round(g.loc[(r, 1.0, 0.8), "EAA"], 6) for r in (10, 20, 40, 100)} == {0.8}
    figures.figure9(grid, str(tmp_path / "f9.png"))
    assert (tmp_path / "f9.png").stat().st_size > 1000
    with pytest.raises(ValueError, match="eaa_grid.steps"):
        eaa_grid([2], steps=1)
