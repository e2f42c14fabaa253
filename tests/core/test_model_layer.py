"""The model layer on the real default model (SmolLM2-135M-Instruct, CPU)."""

from __future__ import annotations

import json

import pytest

from cultalign.models import ChatRequest, ModelClient, RequestCache, SamplingParams, ScoreItem

pytestmark = pytest.mark.slow

MC_PROMPT = (
    "A guest visits a family in Japan and is offered tea. Which response fits the local norm best?\n"
    "Answer with the option text."
)
OPTIONS = [" Accept the tea with both hands.", " Refuse loudly.", " Pour it on the floor.",
           " Ask for coffee instead.", " Leave the house."]


def test_prefix_cached_scoring_equals_full_prompt_scoring(smollm2_client, smollm2_backend):
    item = ScoreItem.make(MC_PROMPT, OPTIONS)
    fast = smollm2_client.score_options([item])[0]
    rendered = smollm2_client.render(item.messages)
    ref = smollm2_backend.score_full(rendered, OPTIONS)
    assert fast.token_counts == ref.token_counts
    for a, b in zip(fast.logprobs, ref.logprobs):
        assert a == pytest.approx(b, abs=2e-3)
    assert all(lp < 0 for lp in fast.logprobs)
    assert 0 < fast.valid_mass <= 1
    assert sum(fast.probs) == pytest.approx(1.0)


def test_label_scoring_reports_mass_on_valid_options(smollm2_client):
    item = ScoreItem.make("Is bowing a common greeting in Japan? Answer Yes or No.", ["Yes", "No"])
    sc = smollm2_client.score_options([item])[0]
    # single-token labels right after the generation prompt: most mass should sit on them
    assert sc.token_counts == [1, 1]
    assert 0.05 < sc.valid_mass <= 1.0


def test_generation_stop_strings_and_counts(smollm2_client):
    p = SamplingParams(temperature=0.0, max_new_tokens=20, stop=("\n",), seed=1)
    g = smollm2_client.generate([ChatRequest.make("List three colours, one per line.", p)])[0]
    assert "\n" not in g.text
    assert g.prompt_tokens > 5 and 0 < g.completion_tokens <= 20


def test_warm_cache_makes_zero_model_calls_and_loads_no_weights(smollm2_spec, smollm2_backend, tmp_path):
    reqs = [ChatRequest.make(f"Say the number {i}.", SamplingParams(max_new_tokens=6, seed=3)) for i in range(5)]
    items = [ScoreItem.make("Pick A or B.", ["A", "B"])]
    cold = ModelClient(smollm2_spec, RequestCache(tmp_path, "m", "w1"), backend=smollm2_backend)
    g1 = cold.generate(reqs)
    s1 = cold.score_options(items)
    assert cold.stats["model_requests"] == 6
    warm = ModelClient(smollm2_spec, RequestCache(tmp_path, "m", "w2"))  # no backend handed in
    g2 = warm.generate(reqs)
    s2 = warm.score_options(items)
    assert warm.stats["model_requests"] == 0 and warm.stats["cache_hits"] == 6
    assert warm._backend is None  # weights never loaded
    assert [g.text for g in g1] == [g.text for g in g2]
    assert s1[0].logprobs == s2[0].logprobs


def test_seed_and_params_are_part_of_the_key(smollm2_client):
    base = SamplingParams(temperature=1.0, top_p=0.95, max_new_tokens=8, seed=1)
    reqs = [ChatRequest.make("Write one word.", base), ChatRequest.make("Write one word.", base.with_seed(2)),
            ChatRequest.make("Write one word.", base)]
    smollm2_client.generate(reqs)
    # the duplicate (third) is computed once; the new seed is a new request
    assert smollm2_client.stats["model_requests"] == 2


def test_unparseable_outputs_are_retried_with_new_seeds_then_counted(smollm2_client):
    def parse_never(text):  # a parser no output can satisfy: exercises the retry bookkeeping
        raise ValueError("not a label")

    reqs = [ChatRequest.make("Answer A or B.", SamplingParams(temperature=0.0, max_new_tokens=4, seed=5))]
    res = smollm2_client.generate_parsed(reqs, parse_never, max_attempts=3)[0]
    assert not res.valid and res.value is None and res.n_attempts == 3
    seeds = [a["seed"] for a in res.attempts]
    assert len(set(seeds)) == 3
    assert res.attempts[0]["temperature"] == 0.0 and res.attempts[1]["temperature"] >= 0.7
    assert all(a["error"].startswith("ValueError") for a in res.attempts)
    assert res.raw == res.attempts[-1]["raw"]


def test_structured_output_with_xgrammar_is_valid_json(smollm2_client):
    schema = {"type": "object", "properties": {
        "decision": {"type": "string", "enum": ["FOLLOW_CULTURE", "ALLOW_PREFERENCE"]},
        "reason": {"type": "string", "maxLength": 60}}, "required": ["decision", "reason"],
        "additionalProperties": False}
    reqs = [ChatRequest.make("A guest prefers to keep shoes on in a Japanese home. Decide and give a short reason "
                             "as JSON.", SamplingParams(max_new_tokens=60, seed=2))]
    res = smollm2_client.generate_json(reqs, schema, max_attempts=2)[0]
    assert res.valid, res.attempts
    assert res.value["decision"] in ("FOLLOW_CULTURE", "ALLOW_PREFERENCE")
    json.loads(res.raw[res.raw.index("{"):])


def test_rendering_applies_chat_template_once(smollm2_client):
    text = smollm2_client.render(ChatRequest.make("hello", system="Be brief.").messages)
    assert text.count("hello") == 1 and text.count("Be brief.") == 1
    assert text.rstrip().endswith("assistant")
    assert len(smollm2_client.template_hash()) == 16


def test_sampled_requests_with_different_seeds_share_one_batch(smollm2_client):
    reqs = [ChatRequest.make("Name a fruit.", SamplingParams(temperature=0.8, max_new_tokens=6, seed=s))
            for s in range(4)]
    gens = smollm2_client.generate(reqs)
    assert smollm2_client.stats == {"cache_hits": 0, "model_requests": 4, "backend_batches": 1}
    assert all(g.completion_tokens > 0 for g in gens)


def test_structured_output_writes_fields_in_schema_order(smollm2_client):
    schema = {"type": "object", "properties": {
        "question": {"type": "string", "maxLength": 40},
        "answer_high": {"type": "string", "maxLength": 20},
        "answer_low": {"type": "string", "maxLength": 20}},
        "required": ["question", "answer_high", "answer_low"], "additionalProperties": False}
    res = smollm2_client.generate_json(
        [ChatRequest.make("Write a question about punctuality and two answers as JSON.",
                          SamplingParams(max_new_tokens=60, seed=4))], schema, max_attempts=2)[0]
    assert res.valid, res.attempts
    assert list(res.value) == ["question", "answer_high", "answer_low"]  # not sorted


def test_onednn_linear_matches_torch_kernel_on_the_real_model(smollm2_spec, smollm2_backend):
    """The default CPU kernel (oneDNN) against torch's own kernel on the same weights."""
    import dataclasses

    from cultalign.models.transformers_backend import TransformersBackend

    assert smollm2_backend.linear_kernel == "onednn"
    ref = TransformersBackend(dataclasses.replace(smollm2_spec, cpu_linear="torch"))
    assert ref.linear_kernel == "torch"
    client = ModelClient(smollm2_spec, None, backend=smollm2_backend)
    p = SamplingParams(temperature=0.0, max_new_tokens=24, seed=1)
    prompts = [client.render(ChatRequest.make(q).messages) for q in
               ("Name a greeting custom in Japan.", "What do guests bring to a dinner in Denmark?")]
    assert [g.text for g in smollm2_backend.generate(prompts, p)] == [g.text for g in ref.generate(prompts, p)]
    item = (client.render(ScoreItem.make(MC_PROMPT, OPTIONS).messages), OPTIONS)
    for a, b in zip(smollm2_backend.score([item])[0].logprobs, ref.score([item])[0].logprobs):
        assert a == pytest.approx(b, abs=2e-3)


def test_packed_and_cached_option_scoring_agree(smollm2_client, smollm2_backend):
    """Both shared-prefix paths against each other and the full-prompt reference, incl. 1-token labels."""
    items = [ScoreItem.make(MC_PROMPT, OPTIONS), ScoreItem.make("Is bowing common in Japan? Yes or No.", ["Yes", "No"]),
             ScoreItem.make("Pick the polite reply.",
                            [" Thank you very much.", " No.", " Thanks, I would love some tea."])]
    smollm2_client.score_options(items[:1])
    assert smollm2_backend._packed_ok is True
    tok = smollm2_backend.tokenizer
    for it in items:
        prompt = smollm2_client.render(it.messages)
        opts = list(it.options)
        p_ids, o_ids = smollm2_backend.split_item(prompt, opts)
        assert p_ids == tok(prompt, add_special_tokens=False)["input_ids"]
        packed = smollm2_backend._score_packed(p_ids, o_ids)
        cached = smollm2_backend._score_cached(p_ids, o_ids)
        full = smollm2_backend.score_full(prompt, opts)
        assert packed.token_counts == cached.token_counts == full.token_counts
        for a, b, c in zip(packed.logprobs, cached.logprobs, full.logprobs):
            assert a == pytest.approx(b, abs=1e-3) and a == pytest.approx(c, abs=2e-3)


def test_packed_scoring_falls_back_to_the_cached_path(smollm2_spec, smollm2_backend, monkeypatch, caplog):
    import dataclasses

    from cultalign.models.transformers_backend import TransformersBackend

    be = TransformersBackend(dataclasses.replace(smollm2_spec))  # a fresh backend: its first item runs the check

    def fake_packed(p_ids, opts):  # a fake packed path, as if the attention kernel rejected the mask
        raise NotImplementedError("custom 4D masks are not supported")

    monkeypatch.setattr(be, "_score_packed", fake_packed)
    client = ModelClient(smollm2_spec, None, backend=be)
    first, second = client.score_options([ScoreItem.make(MC_PROMPT, OPTIONS), ScoreItem.make(MC_PROMPT, OPTIONS[:3])])
    assert be._packed_ok is False and "NOT used" in caplog.text and "custom 4D masks" in caplog.text
    ref = smollm2_backend.score_full(client.render(ScoreItem.make(MC_PROMPT, OPTIONS).messages), OPTIONS)
    for a, b in zip(first.logprobs, ref.logprobs):
        assert a == pytest.approx(b, abs=2e-3)
    assert len(second.logprobs) == 3


def test_long_items_are_scored_through_the_cached_path(smollm2_client, smollm2_backend, monkeypatch):
    import cultalign.models.transformers_backend as tb

    item = ScoreItem.make(MC_PROMPT, OPTIONS)
    rendered = smollm2_client.render(item.messages)
    smollm2_backend.score([(rendered, OPTIONS)])  # the packed path has been checked
    calls = []
    monkeypatch.setattr(smollm2_backend, "_score_packed", lambda *a: calls.append(a))
    monkeypatch.setattr(tb, "PACKED_MAX_TOKENS", 10)
    long_ = smollm2_backend.score([(rendered, OPTIONS)])[0]
    assert calls == []
    ref = smollm2_backend.score_full(rendered, OPTIONS)
    for a, b in zip(long_.logprobs, ref.logprobs):
        assert a == pytest.approx(b, abs=2e-3)


def test_generation_batch_over_max_batch_tokens_runs_as_bounded_sub_batches(smollm2_backend, monkeypatch):
    from dataclasses import replace

    from cultalign.models.transformers_backend import token_bounded_ranges

    tok = smollm2_backend.tokenizer
    prompts = [f"Name {n} colours of the rainbow." + " Please be brief." * n for n in (1, 2, 4, 8)]
    lens = [len(tok(p, add_special_tokens=False)["input_ids"]) for p in prompts]
    params = SamplingParams(temperature=0.0, max_new_tokens=6, seed=1)
    bound = 2 * (max(lens[:2]) + 6)
    want = token_bounded_ranges(lens, 6, bound)
    assert len(want) >= 2
    monkeypatch.setattr(smollm2_backend, "spec", replace(smollm2_backend.spec, max_batch_tokens=bound))
    seen = []
    real = smollm2_backend._generate_batch
    monkeypatch.setattr(smollm2_backend, "_generate_batch",
                        lambda ps, *a: seen.append(list(ps)) or real(ps, *a))
    got = smollm2_backend.generate(prompts, params)
    assert seen == [prompts[lo:hi] for lo, hi in want]
    # each sub-batch answers as the same prompts sent alone as one batch
    ids = tok(prompts, add_special_tokens=False)["input_ids"]
    alone = [g for lo, hi in want for g in real(prompts[lo:hi], ids[lo:hi], params, None, [1] * (hi - lo))]
    assert [g.text for g in got] == [g.text for g in alone] and len(got) == len(prompts)


def test_shared_prefix_groups():
    from cultalign.models.transformers_backend import shared_prefix_groups

    a = list(range(40))
    prompts = [a + [1, 2], [9] * 50, a + [3], a[:35] + [7, 7], [9] * 10 + [5]]
    groups = shared_prefix_groups(prompts, 32)
    assert sorted(i for m, _ in groups for i in m) == [0, 1, 2, 3, 4]
    by_first = {tuple(sorted(m)): n for m, n in groups}
    # 0 and 2 share 40 tokens; 3 shares 35 with them: 3 x 35 = 105 >= 1 x 40 saved before, so it joins
    assert by_first[(0, 2, 3)] == 35
    # 1 and 4 share 10 tokens (< 32): groups of one
    assert by_first[(1,)] == 0 and by_first[(4,)] == 0
    # a member that would cost the group more than it saves starts its own group
    deep = [list(range(100)) + [i] for i in range(4)] + [list(range(33)) + [500]]
    groups = {tuple(sorted(m)): n for m, n in shared_prefix_groups(deep, 32)}
    assert groups == {(0, 1, 2, 3): 100, (4,): 0}
    # a prefix never covers a member's whole prompt
    assert shared_prefix_groups([a, a + [1]], 32) == [([0, 1], 39)]


def test_shared_prefix_scoring_equals_item_by_item_scoring(smollm2_client, smollm2_backend):
    """Items asking several questions about one scenario: scored as a group (the scenario once) and one
    by one through the packed path, the same log-probs."""
    scenario = ("Aiko has just moved from Osaka to Copenhagen for work. At her first team lunch her "
                "colleagues split the bill evenly, talk loudly about weekend plans and call the manager "
                "by her first name. ")
    questions = ["How would you greet the manager the next morning?", "Would you offer to pay for everyone?",
                 "What would you say about your own weekend?"]
    items = [ScoreItem.make(scenario + q, OPTIONS) for q in questions] + [ScoreItem.make(MC_PROMPT, OPTIONS)]
    rendered = [(smollm2_client.render(it.messages), list(it.options)) for it in items]
    smollm2_backend.score(rendered[:1])  # the packed path has been checked
    calls = []
    real = smollm2_backend._score_shared
    smollm2_backend._score_shared = lambda its, n: calls.append((len(its), n)) or real(its, n)
    try:
        grouped = smollm2_backend.score(rendered)
    finally:
        del smollm2_backend._score_shared
    assert len(calls) == 1 and calls[0][0] == 3 and calls[0][1] >= 32
    assert smollm2_backend._shared_ok is True
    for (prompt, opts), g in zip(rendered, grouped):
        one = smollm2_backend._score_packed(*smollm2_backend.split_item(prompt, opts))
        assert g.token_counts == one.token_counts
        for a, b in zip(g.logprobs, one.logprobs):
            assert a == pytest.approx(b, abs=1e-3)


def test_shared_prefix_scoring_falls_back_to_item_by_item(smollm2_spec, smollm2_backend, caplog):
    import dataclasses

    from cultalign.models.transformers_backend import TransformersBackend

    be = TransformersBackend(dataclasses.replace(smollm2_spec))  # a fresh backend: its first group runs the check

    def fake_group(items, n):  # a fake grouped path, as if the model's cache could not be cropped
        raise NotImplementedError("this cache cannot be cropped")

    be._score_group = fake_group
    client = ModelClient(smollm2_spec, None, backend=be)
    shared = "Read the scenario carefully and answer as yourself. " * 4
    items = [ScoreItem.make(shared + q, OPTIONS) for q in ("Question one?", "Question two?", "Question three?")]
    got = client.score_options(items)
    assert be._shared_ok is False and "NOT used" in caplog.text and "cannot be cropped" in caplog.text
    for it, g in zip(items, got):
        ref = smollm2_backend.score_full(client.render(it.messages), OPTIONS)
        for a, b in zip(g.logprobs, ref.logprobs):
            assert a == pytest.approx(b, abs=2e-3)


def _loop_prompts(client):
    """Prompts for the decoding loop: three share a long scenario (one group, rests of different
    lengths), two stand alone (different lengths: a left-padded batch of their own)."""
    scenario = ("Aiko has just moved from Osaka to Copenhagen for work. At her first team lunch her "
                "colleagues split the bill evenly, talk loudly about weekend plans and call the manager "
                "by her first name. ")
    texts = [scenario + "How would you greet the manager the next morning?", "Name a greeting custom in Japan.",
             scenario + "Would you offer to pay?", "What do guests bring to a dinner in Denmark? Be brief.",
             scenario + "What would you say about your own weekend plans, and to whom would you say it?"]
    return [client.render(ChatRequest.make(t).messages) for t in texts]


# a JSON answer short enough that rows complete it at different steps, before max_new_tokens
LOOP_SCHEMA = json.dumps({"type": "object", "properties": {
    "decision": {"type": "string", "enum": ["yes", "no", "it depends"]},
    "reason": {"type": "string", "maxLength": 24}}, "required": ["decision", "reason"],
    "additionalProperties": False})


@pytest.mark.parametrize("params, schema", [
    (SamplingParams(temperature=0.0, max_new_tokens=16, seed=1), None),
    (SamplingParams(temperature=0.0, max_new_tokens=24, seed=1, stop=(".",)), None),  # rows end at different steps
    (SamplingParams(temperature=0.8, top_p=0.9, max_new_tokens=16, seed=1, stop=(",",)), None),
    (SamplingParams(temperature=0.0, max_new_tokens=40, seed=1), LOOP_SCHEMA),
    (SamplingParams(temperature=0.8, top_p=0.9, max_new_tokens=40, seed=1), LOOP_SCHEMA),
], ids=["greedy", "greedy-stop", "sampled-stop", "greedy-json", "sampled-json"])
def test_decoding_loop_equals_transformers_generate(smollm2_client, smollm2_backend, params, schema):
    """The grouped-prefill decoding loop (scenario once, finished rows leaving the batch) gives the texts,
    token counts and finish reasons of transformers' generate on the same prompts and seeds, with and
    without a JSON schema (xgrammar's matcher in the loop, its logits processor in generate)."""
    from cultalign.models.transformers_backend import shared_prefix_groups

    prompts = _loop_prompts(smollm2_client)
    ids = smollm2_backend.tokenizer(prompts, add_special_tokens=False)["input_ids"]
    groups = shared_prefix_groups(ids, 32)
    assert sorted(len(m) for m, _ in groups) == [1, 1, 3]
    seeds = [11, 12, 13, 14, 15]
    got = smollm2_backend.generate(prompts, params, schema=schema, seeds=seeds)
    assert smollm2_backend._loop_ok is True
    ref = smollm2_backend._generate_hf(prompts, params, schema, seeds)
    assert [(g.text, g.completion_tokens, g.finish_reason, g.prompt_tokens) for g in got] == \
        [(g.text, g.completion_tokens, g.finish_reason, g.prompt_tokens) for g in ref]
    if params.stop or schema:  # some row ended before the others, so the batch shrank on the way
        assert len({g.completion_tokens for g in got}) > 1 and any(g.finish_reason == "stop" for g in got)
    if schema:  # every row completed its JSON object within the token limit
        assert all(json.loads(g.text)["decision"] in ("yes", "no", "it depends") for g in got)


def test_decoding_loop_falls_back_to_transformers_generate(smollm2_spec, smollm2_backend, caplog):
    import dataclasses

    from cultalign.models.transformers_backend import TransformersBackend

    be = TransformersBackend(dataclasses.replace(smollm2_spec))  # a fresh backend: its first batch runs the check
    be._chosen_logprobs = lambda ids, new: [0.5] * len(new)  # a fake reference that disagrees with the loop
    client = ModelClient(smollm2_spec, None, backend=be)
    prompts = _loop_prompts(client)
    params = SamplingParams(temperature=0.0, max_new_tokens=8, seed=1)
    got = be.generate(prompts, params)
    assert be._loop_ok is False and "NOT used" in caplog.text
    assert [g.text for g in got] == [g.text for g in smollm2_backend._generate_hf(prompts, params, None, [1] * 5)]


def test_generation_configs_with_logits_processing_keep_transformers_generate():
    from transformers import GenerationConfig

    from cultalign.models.transformers_backend import loop_blockers

    assert loop_blockers(GenerationConfig(eos_token_id=2, pad_token_id=2)) == []
    assert loop_blockers(GenerationConfig(repetition_penalty=1.05, suppress_tokens=[5])) == \
        ["repetition_penalty", "suppress_tokens"]


def test_bfloat16_backend_keeps_its_fast_paths_and_records_the_cpu(smollm2_spec, caplog):
    """bfloat16 weights on the CPU: the load logs the CPU's bfloat16 support, and the first checks of the
    packed scorer, the shared-prefix groups and the decoding loop pass at bfloat16's tolerance (its own
    rounding in other orders), so bfloat16 runs the fast paths, not the fallbacks."""
    import dataclasses

    from cultalign.models.cpu import cpu_features
    from cultalign.models.transformers_backend import TransformersBackend

    caplog.set_level("INFO")
    be = TransformersBackend(dataclasses.replace(smollm2_spec, dtype="bfloat16"))
    assert be.precision["dtype"] == "bfloat16" and be.precision["cpu_bf16"] == cpu_features()["bf16"]
    assert f"bfloat16 support: {cpu_features()['bf16']}" in caplog.text
    client = ModelClient(dataclasses.replace(smollm2_spec, dtype="bfloat16"), None, backend=be)
    assert client.provenance()["precision"] == be.precision
    scenario = _loop_prompts(client)[0].split("How would")[0]
    items = [ScoreItem.make(MC_PROMPT, OPTIONS)] + [
        ScoreItem.make(scenario + q, OPTIONS) for q in ("What is polite?", "What would a guest do?")]
    client.score_options(items)
    assert be._packed_ok is True and be._shared_ok is True
    be.generate(_loop_prompts(client), SamplingParams(temperature=0.0, max_new_tokens=64, seed=1))
    assert be._loop_ok is True
