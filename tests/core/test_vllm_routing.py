"""Which vLLM scoring path an item takes (cultalign.models.vllm_backend.cached_path_fits)."""

from cultalign.models.vllm_backend import MAX_CACHED_OPTION_TOKENS, cached_path_fits


def test_short_options_take_the_prefix_cached_path():
    prompt = list(range(100))
    short = [(prompt + [1, 2], 100), (prompt + [3] * MAX_CACHED_OPTION_TOKENS, 100)]
    assert cached_path_fits(short)


def test_one_long_option_sends_the_item_the_prompt_logprobs_way():
    prompt = list(range(100))
    plan = [(prompt + [1, 2], 100), (prompt + [3] * (MAX_CACHED_OPTION_TOKENS + 1), 100)]
    assert not cached_path_fits(plan)
