"""The arithmetic behind ``bench/compute_bound.py``: positions and logit rows counted from token ids, and
Amdahl's bound on a speed-up of one part of a run."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from compute_bound import amdahl_bound, distinct_prefixes, generation_work, least_flops, scoring_work  # noqa: E402


def test_distinct_prefixes_count_a_shared_prefix_once():
    assert distinct_prefixes([[1, 2, 3], [1, 2, 4], [1, 2, 3]]) == 4  # 1, 12, 123, 124
    assert distinct_prefixes([[5], [6, 7]]) == 3
    assert distinct_prefixes([[], [1]]) == 1


def test_generation_work_feeds_every_new_token_but_the_last():
    prompts, new = [[1, 2, 3], [1, 2, 9]], [[4, 5], [6]]
    w = generation_work(prompts, new)
    assert w["positions"] == 4 + 3  # 1 2 3 4 | 1 2 9
    assert w["logit_rows"] == 3
    assert w["least_positions"] == 5  # 1, 12, 123, 1234, 129
    assert w["least_logit_rows"] == 3  # after 123, 1234 and 129


def test_scoring_work_counts_the_packed_positions_and_the_least_an_exact_scorer_needs():
    # two items sharing the prompt prefix [1, 2]; options of one and two tokens
    splits = [([1, 2, 3], [[7], [8, 9]]), ([1, 2, 4], [[7]])]
    w = scoring_work(splits)
    assert w["positions"] == w["positions_item_by_item"] == (3 + 3) + (3 + 1)  # prompt, every option token
    assert w["logit_rows"] == 4
    # fed: 123, 123 8, 124 -> prefixes 1, 12, 123, 1238, 124
    assert w["least_positions"] == 5
    # predictions after 123 (7 and 8 share it), 1238 and 124
    assert w["least_logit_rows"] == 3


def test_least_flops_is_two_operations_per_weight_and_position():
    sizes = {"linear_params": 100, "output_params": 10}
    assert least_flops(sizes, positions=3, logit_rows=2) == pytest.approx(2 * (300 + 20))


def test_scoring_work_counts_a_group_prefix_once():
    from cultalign.models.transformers_backend import SHARED_PREFIX_MIN_TOKENS

    shared = list(range(100, 100 + SHARED_PREFIX_MIN_TOKENS + 8))
    splits = [(shared + [1], [[7]]), (shared + [2], [[7]]), (shared + [3], [[7]])]
    w = scoring_work(splits)
    assert w["positions_item_by_item"] == 3 * (len(shared) + 2)
    assert w["positions"] == w["positions_item_by_item"] - 2 * len(shared)


def test_one_token_per_step_bound_adds_a_read_floor_per_decode_step():
    from compute_bound import one_token_per_step_bound

    sizes = {"linear_params": 100, "output_params": 10}
    # prompts share [1, 2]: 4 distinct prefix positions, 2 distinct prompts; rows of 3 and 1 new tokens
    prompts, new = [[1, 2, 3], [1, 2, 4]], [[5, 6, 7], [8]]
    peak = 1e-9  # 1 FLOP/s: arithmetic in seconds
    b = one_token_per_step_bound(sizes, prompts, new, peak, step_floor=1e6)
    assert b["prefill_seconds"] == pytest.approx(2 * (100 * 4 + 10 * 2))
    assert b["decode_steps"] == 2  # the first new token comes from the prefill
    # one row left in each step: 2 * 110 FLOP < the floor, so each step takes the floor
    assert b["decode_seconds"] == pytest.approx(2e6)
    slow = one_token_per_step_bound(sizes, prompts, new, peak, step_floor=0.0)
    assert slow["decode_seconds"] == pytest.approx(2 * 2 * 110)  # arithmetic when the floor is lower
    assert slow["least_seconds"] == pytest.approx(slow["prefill_seconds"] + slow["decode_seconds"])


def test_amdahl_bound_speeds_up_one_part_only():
    shares = {"linear": 0.7, "attention": 0.1, "other": 0.2}
    assert amdahl_bound(shares, 2.0) == pytest.approx(1 / (0.3 + 0.35))
    assert amdahl_bound(shares, float("inf")) == pytest.approx(1 / 0.3)
    assert amdahl_bound(shares, 1.0) == pytest.approx(1.0)
    assert amdahl_bound(shares, 4.0, part="other") == pytest.approx(1 / (0.8 + 0.05))
    with pytest.raises(ValueError, match="sum to 1"):
        amdahl_bound({"linear": 0.7, "other": 0.2}, 2.0)
    with pytest.raises(ValueError, match="positive"):
        amdahl_bound(shares, 0.0)
