"""Appendix tables 5, 7, 8, 14 and the B.8 configuration rates per model, not only pooled."""

import itertools

import pandas as pd
import pytest

from cultalign.pact import analysis
from cultalign.pact.labels import ALLOW, FOLLOW


def decisions() -> pd.DataFrame:
    """Model a allows 3/4 under balance and 1/4 under no-balance; model b the reverse, so the pooled
    balance effect is zero while each model's is +-50 pp.  Model big is a comparison model."""
    rows = []
    grid = itertools.product(["a", "b", "big"], ["balance", "no_balance"], ["C1", "C2"],
                             ["full_demo", "no_demo"], ["normad", "cultureatlas"], range(4))
    for model, prompt, conf, abl, src, k in grid:
        high = (prompt == "balance") == (model == "a")
        allow = k < (3 if high else 1)
        if model == "a" and conf == "C2" and abl == "full_demo":
            allow = k < 4  # model a allows everything in C2 with full demographics
        if model == "b" and src == "cultureatlas":
            allow = k < 4
        rows.append({"model": model, "system_prompt": prompt, "configuration": conf, "demo_ablation": abl,
                     "source": src, "decision": ALLOW if allow else FOLLOW})
    return pd.DataFrame(rows)


def test_per_model_tables():
    everything = decisions()
    d = everything[everything.model.isin(["a", "b"])]
    t = analysis.per_model_tables(d, everything, n_boot=20, seed=0)
    assert set(t["table"]) == {"table5_system_prompt", "table7_demo_ablation", "table8_configuration_demo_ablation",
                               "table14_source", "b8_configuration"}
    t5 = t[t.table == "table5_system_prompt"].set_index(["model", "level"])
    assert set(t5.index.get_level_values("model")) == {"a", "b"}  # main models only
    # model a, balance: C1 3/4 x 2 ablations x 2 sources + C2 (full_demo all, no_demo 3/4)
    a_bal = t5.loc[("a", "balance")]
    a_nob = t5.loc[("a", "no_balance")]
    assert a_bal.n_valid == 32 and a_bal.allow_rate == pytest.approx((6 * 3 + 2 * 4) / 32)
    assert a_bal.delta_pp == pytest.approx(100 * (a_bal.allow_rate - a_nob.allow_rate))
    assert t5.loc[("a", "no_balance"), "delta_pp"] == 0
    t8 = t[t.table == "table8_configuration_demo_ablation"].set_index(["model", "level"])
    a_c2 = t8.loc[("a", "C2|full_demo")]
    assert a_c2.delta_pp == pytest.approx(100 * (a_c2.allow_rate - t8.loc[("a", "C2|no_demo"), "allow_rate"]))
    assert a_c2.delta_pp > 0 and t8.loc[("b", "C2|full_demo"), "delta_pp"] == pytest.approx(0)
    t14 = t[t.table == "table14_source"].set_index(["model", "level"])
    b_ca, b_na = t14.loc[("b", "cultureatlas"), "allow_rate"], t14.loc[("b", "normad"), "allow_rate"]
    assert b_ca == 1.0 and t14.loc[("b", "cultureatlas"), "delta_pp"] == pytest.approx(100 * (b_ca - (b_ca + b_na) / 2))
    b8 = t[t.table == "b8_configuration"]
    assert set(b8["model"]) == {"a", "b", "big"}  # the comparison model too
