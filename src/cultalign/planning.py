"""Paper scale on paper: requests, prompt and generated tokens of every model rule, and the GPU-hours
they imply, before anything runs (rule ``planning_gpu_hours``; docs/benchmarks.md).

Counts come from the workflow's own sizes: config values (models, countries, conditions, shards of
work) times input sizes (rows of an input file where it is present; else ``planning.input_sizes``,
which config/paper.yaml sets to the papers' published counts).  Prompt tokens are estimates: each
rule's real prompt is built by the study's own code (or its template rendered) on sample inputs
(the repository's demo inputs; fields a model writes upstream filled to their configured caps) and
counted with ``planning.tokenizer_model``'s tokenizer and chat template (SmolLM2's by default: an
approximation of every other model's tokenizer).  Generated tokens are upper bounds
(``max_new_tokens`` per request).  GPU-hours are an estimate:

    hours = gpus x (generated + prompt_token_cost x prompt) / generated_tokens_per_s / 3600

with the throughput of the model's parameter-count class (``planning.throughput``, defaults from a
published vLLM A100 benchmark).  API models use no GPU: their rows carry tokens and 0 GPU-hours.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from .core.paths import workflow_root
from .models.families import reasoning_reserve

COLUMNS = ["study", "rule", "model", "backend", "gpus", "params_b", "jobs", "requests", "prompt_tokens",
           "generated_tokens", "generated_tokens_per_s", "gpu_hours", "basis"]


def demo_dir() -> Path:
    """The demo inputs of the workflow (``resources/demo/``)."""
    return workflow_root() / "resources" / "demo"


# ---------------------------------------------------------------- arithmetic


@dataclass(frozen=True)
class Work:
    """The requests of one rule for one model: ``requests`` calls of ``prompt_tokens`` prompt tokens each
    (mean), at most ``max_new_tokens`` generated each (0: scoring only), in ``jobs`` Snakemake jobs."""

    study: str
    rule: str
    model: str
    jobs: int
    requests: int
    prompt_tokens: float
    max_new_tokens: int
    basis: str


def params_b(name: str, explicit: dict | None = None) -> float | None:
    """Parameter count (billions) of a model: ``planning.params_b[name]`` where given, else the
    ``<n>b`` in its name (``llama-3.1-70b-instruct`` -> 70, ``qwen3-30b-a3b`` -> 30); None if neither."""
    if explicit and name in explicit:
        return float(explicit[name])
    m = re.search(r"(?<![a-z0-9.])(\d+(?:\.\d+)?)b(?![a-z])", name.lower())
    return float(m.group(1)) if m else None


def throughput_of(p_b: float, classes: list[dict]) -> dict:
    """The first class (ascending ``max_params_b``) that holds a model of ``p_b`` billion parameters."""
    for c in sorted(classes, key=lambda c: c["max_params_b"]):
        if p_b <= c["max_params_b"]:
            return c
    raise ValueError(f"no planning.throughput class holds a model of {p_b:g}B parameters "
                     f"(largest: {max(c['max_params_b'] for c in classes)}B); add one")


def gpu_hours(gpus: int, prompt_tokens: float, generated_tokens: float, generated_tokens_per_s: float,
              prompt_token_cost: float) -> float:
    """GPU-hours of a job's tokens: gpus x (generated + cost x prompt) / throughput / 3600."""
    if generated_tokens_per_s <= 0:
        raise ValueError(f"generated_tokens_per_s must be > 0, not {generated_tokens_per_s}")
    return gpus * (generated_tokens + prompt_token_cost * prompt_tokens) / generated_tokens_per_s / 3600.0


def table(work: list[Work], models: dict, planning: dict) -> pd.DataFrame:
    """One row per (rule, model): totals and GPU-hours (0 for API models, which use none)."""
    rows = []
    for w in work:
        spec = models[w.model]
        backend = spec.get("backend", "")
        prompt = round(w.requests * w.prompt_tokens)
        # a reasoning model may generate its reasoning reserve besides the visible budget (models.<m>.reasoning_tokens)
        generated = w.requests * (w.max_new_tokens + reasoning_reserve(spec) if w.max_new_tokens else 0)
        if backend in ("vllm", "transformers"):
            p_b = params_b(w.model, planning.get("params_b"))
            if p_b is None:
                raise ValueError(f"model {w.model}: no parameter count in its name; set planning.params_b.{w.model}")
            gpus = int(spec.get("tensor_parallel_size") or 1)
            tps = float(throughput_of(p_b, planning["throughput"])["generated_tokens_per_s"])
            hours = gpu_hours(gpus, prompt, generated, tps, planning["prompt_token_cost"])
        else:
            p_b, gpus, tps, hours = None, 0, None, 0.0
        rows.append({"study": w.study, "rule": w.rule, "model": w.model, "backend": backend, "gpus": gpus,
                     "params_b": p_b, "jobs": w.jobs, "requests": w.requests, "prompt_tokens": prompt,
                     "generated_tokens": generated, "generated_tokens_per_s": tps, "gpu_hours": round(hours, 2),
                     "basis": w.basis})
    return pd.DataFrame(rows, columns=COLUMNS)


def totals(df: pd.DataFrame) -> pd.DataFrame:
    """Per study and overall: requests, tokens, GPU-hours."""
    cols = ["requests", "prompt_tokens", "generated_tokens", "gpu_hours"]
    out = df.groupby("study", sort=False)[cols].sum().reset_index()
    out = pd.concat([out, pd.DataFrame([{"study": "all", **df[cols].sum().to_dict()}])], ignore_index=True)
    out[cols[:3]] = out[cols[:3]].astype("int64")
    out["gpu_hours"] = out["gpu_hours"].round(1)
    return out


# ---------------------------------------------------------------- prompt tokens


class Tokens:
    """Token counts with one tokenizer and its chat template (an approximation of other models')."""

    def __init__(self, tokenizer):
        self.tok = tokenizer
        self._pool = " ".join((demo_dir() / "personas" / "corpus" / "usa.txt").read_text(encoding="utf-8").split())

    @classmethod
    def from_dir(cls, path: str | Path) -> Tokens:
        from transformers import AutoTokenizer

        return cls(AutoTokenizer.from_pretrained(str(path)))

    def text(self, s: str) -> int:
        return len(self.tok(s, add_special_tokens=False)["input_ids"])

    def chat(self, user: str | list[dict], system: str | None = None) -> int:
        msgs = user if isinstance(user, list) else [{"role": "user", "content": user}]
        if system:
            msgs = [{"role": "system", "content": system}, *msgs]
        ids = self.tok.apply_chat_template(msgs, add_generation_prompt=True, tokenize=True)
        return len(ids["input_ids"] if isinstance(ids, dict) or hasattr(ids, "keys") else ids)

    def filled(self, n_chars: int, pool: str | None = None) -> str:
        """Sample text of ``n_chars`` characters (a field a model writes, at its configured cap)."""
        pool = pool or self._pool
        return ((pool + " ") * (n_chars // max(len(pool), 1) + 1))[: max(n_chars, 0)]

    def filled_tokens(self, n_tokens: int, pool: str | None = None) -> str:
        """Sample text of ``n_tokens`` tokens (a model's answer at its max_new_tokens)."""
        pool = pool or self._pool
        ids = self.tok(pool, add_special_tokens=False)["input_ids"]
        ids = (ids * (n_tokens // max(len(ids), 1) + 1))[:n_tokens]
        return self.tok.decode(ids)

    def options(self, options: list[str]) -> int:
        """Tokens of scored continuations (each option once)."""
        return sum(self.text(" " + o) for o in options)


# ---------------------------------------------------------------- input sizes


def _size(given, read, what: str, key: str) -> int:
    """An input size: ``given`` (planning.input_sizes.<key>) when set, else ``read()`` from the input file."""
    if given is not None:
        return int(given)
    n = read()
    if n is None:
        raise ValueError(f"{what}: the input is not present; set planning.input_sizes.{key}")
    return int(n)


def _rows(path) -> int | None:
    p = Path(path)
    if not p.is_file():
        return None
    if p.suffix == ".json":
        return len(json.loads(p.read_text(encoding="utf-8")))
    return len(pd.read_csv(p, sep="\t" if p.suffix == ".tsv" else ",", dtype=str, keep_default_na=False))


# ---------------------------------------------------------------- the studies


def _pact(cfg: dict, sizes: dict, tk: Tokens) -> list[Work]:
    from .pact import behaviour, survey
    from .pact.expand import PER_SCENARIO
    from .pact.prompts import render

    P = cfg["pact"]
    cap = int(P["construct"]["max_field_chars"])
    f = tk.filled(cap)
    nd = pd.read_csv(demo_dir() / "pact" / "normad_demo.csv", dtype=str).iloc[0]
    ca = json.loads((demo_dir() / "pact" / "cultureatlas_demo.json").read_text(encoding="utf-8"))[0]
    n_normad = _size(sizes.get("normad_scenarios"), lambda: _rows(P["sources"]["normad"]["path"]),
                     "pact normad scenarios", "pact.normad_scenarios")
    n_ca_rows = _size(sizes.get("cultureatlas_rows"), lambda: _rows(P["sources"]["cultureatlas"]["path"]),
                      "pact cultureatlas rows", "pact.cultureatlas_rows")
    if P["construct"].get("filter_max_rows") is not None:
        n_ca_rows = min(n_ca_rows, int(P["construct"]["filter_max_rows"]))
    n_ca = int(sizes["cultureatlas_kept"]) if sizes.get("cultureatlas_kept") is not None else n_ca_rows
    cap_src = P["construct"].get("max_scenarios_per_source")
    per_source = {s: (min(n, int(cap_src)) if cap_src is not None else n)
                  for s, n in (("normad", n_normad), ("cultureatlas", n_ca))}
    combos = P["expansion"].get("combinations_per_scenario") or PER_SCENARIO
    instances = sum(per_source.values()) * int(combos)
    builder = P["construction_model"] or P["models"][0]
    c = P["construct"]
    work = [Work("pact", "pact_filter_cultureatlas", builder, 1, n_ca_rows,
                 tk.chat(render("filter_cultureatlas", country=ca["country"], keyword=ca["keyword"],
                                positive_sample=ca["positive_sample"])), int(c["filter"]["max_new_tokens"]),
                 f"CultureAtlas rows ({n_ca_rows})")]
    pref = {"normad": tk.chat(render("preference_normad", country=nd["Country"], gold_label=nd["Gold Label"],
                                     rule_of_thumb=nd["Rule-of-Thumb"], story=nd["Story"])),
            "cultureatlas": tk.chat(render("preference_cultureatlas", country=ca["country"], keyword=ca["keyword"],
                                           positive_sample=ca["positive_sample"],
                                           negative_sample=ca["negative_sample"]))}
    rewrite = tk.chat(render("rewrite", country=nd["Country"], cultural_expectation=f, culture_option=f,
                             personal_preference=f, preference_option=f, situation=nd["Story"]))
    judge = tk.chat(render("judge", scenario=f, cultural_expectation=f, culture_option=f, personal_preference=f,
                           preference_option=f))
    judge_model = P.get("judge_model") or builder
    for s, n in per_source.items():
        for k, (stage, p) in enumerate((("preference", pref[s]), ("rewrite", rewrite))):
            work.append(Work("pact", "pact_construct", builder, int(k == 0), n, p, int(c[stage]["max_new_tokens"]),
                             f"{s} scenarios ({n}) x {stage}"))
        work.append(Work("pact", "pact_judge", judge_model, 1, n, judge, int(c["judge"]["max_new_tokens"]),
                         f"{s} scenarios ({n}) x judge"))
    B = P["behaviour"]
    n_cond = len(B["configurations"]) * len(B["demo_ablations"]) * len(B["system_prompts"])
    row = {"culture_option": f, "preference_option": f, "culture_is_A": True, "scenario": f,
           "receiver_country": "India", "actor_country": "Japan", "actor_age": "younger", "actor_gender": "female",
           "receiver_age": "older", "receiver_gender": "male", "demo_ablation": "full_demo",
           "configuration": B["configurations"][0], "cultural_expectation": f, "personal_preference": f,
           "system_prompt": B["system_prompts"][0]}
    decision = tk.chat(behaviour.build_messages(row))
    letters = tk.options(list(behaviour.LOGPROB_OPTIONS)) if B["logprob"] else 0
    for m in list(P["models"]) + list(P.get("comparison_models") or []):
        work.append(Work("pact", "pact_behaviour", m, int(B["shards"]), instances * n_cond, decision,
                         int(B["max_new_tokens"]),
                         f"{instances:,} instances x {n_cond} conditions (generation)"))
        if B["logprob"]:
            work.append(Work("pact", "pact_behaviour", m, 0, instances * n_cond, decision + letters, 0,
                             f"{instances:,} instances x {n_cond} conditions (letter log-probs)"))
    H, A = P["human"], P["alignment"]
    countries = len(H.get("participant_countries") or [])
    responses = int(H["participants_per_country"]) * countries * int(H["scenarios_per_participant"])
    items = min(int(H["max_scenarios"]) if H.get("max_scenarios") is not None else responses, responses)
    per_item = responses / max(items, 1)  # respondents of an item: an upper bound of its persona profiles
    personas = min(per_item, A["max_personas_per_item"]) if A.get("max_personas_per_item") is not None else per_item
    receivers = min(per_item, 4)  # receiver age x gender shown
    n_q = len(survey.QUESTIONS)
    reqs = round(items * len(A["prompt_formats"]) * (receivers + personas) * n_q
                 + min(int(A["position_audit_items"]), items) * receivers * n_q)
    srow = {"culture_option": f, "preference_option": f, "culture_is_A": True, "persona_setting": "persona",
            "persona_age": "older", "persona_gender": "female", "persona_country": "India", "receiver_age": "older",
            "receiver_gender": "male", "prompt_format": A["prompt_formats"][0], "scenario": f,
            "scenario_country": "India", "question_type": next(iter(survey.QUESTIONS))}
    sp = tk.chat(survey.build_survey_messages(srow))
    for m in P["models"]:
        work.append(Work("pact", "pact_survey", m, 1, reqs, sp, int(A["max_new_tokens"]),
                         f"{items} items x {len(A['prompt_formats'])} formats x ({receivers:.0f} receivers + "
                         f"{personas:.1f} personas) x {n_q} questions + position audit"))
    return work


def _instrument_rows(cfg: dict, name: str, sizes: dict) -> tuple[int, str]:
    """(items, format family) of a personas instrument: counted from its file when present."""
    from .personas.instruments import load_instrument

    spec = cfg["personas"]["instruments"][name]
    fam = {"trait": "trait", "big5chat": "big5chat"}.get(spec["format"], "statement")

    def read():
        if not Path(spec["path"]).is_file():
            return None
        return len(load_instrument(spec["format"], spec["path"], name, cfg["personas"].get("bfi_key")))

    n = _size((sizes.get("instrument_items") or {}).get(name), read, f"personas instrument {name} items",
              f"personas.instrument_items.{name}")
    return n, fam


def _personas(cfg: dict, sizes: dict, tk: Tokens) -> list[Work]:
    from .personas.evaluate import _item_prompt, mcs_models, persona_prompt
    from .personas.generate import CHECK_LABELS
    from .personas.instruments import load_instrument
    from .personas.prompts import PROMPTS

    P = cfg["personas"]
    G = P["generation"]
    ch = G["max_chars"]
    countries = list(P["run_countries"])
    name = P["countries"][countries[0]]["name"]
    system = PROMPTS.text("generator_system")
    n_norms = int(G["n_norms"])
    with_sc = n_norms if G.get("norms_with_scenarios") is None else min(n_norms, int(G["norms_with_scenarios"]))
    n_sc = with_sc * int(G["n_scenarios"])
    n_q = n_sc * 5
    chunk = tk.filled(int(P["corpus"]["chunk_size"]))
    context = "\n".join(f"[{k + 1}] {chunk}" for k in range(int(P["corpus"]["top_k"])))
    norm, scen, ques, ans = (tk.filled(int(ch[k])) for k in ("norm", "scenario", "question", "answer"))
    hint = "how the person acts"
    mnt = G["max_new_tokens"]
    gen = P["generator_model"]
    per = {
        "personas_norms": (n_norms, tk.chat(PROMPTS.render("norm", country=name, context=context, topic="family life"),
                                            system),
                           tk.chat(PROMPTS.render("norm_check", country=name, context=context, norm=norm), system),
                           0, int(mnt["norm"]), f"{n_norms} norms"),
        "personas_scenarios": (n_sc, tk.chat(PROMPTS.render("scenario", country=name, norm=norm), system),
                               tk.chat(PROMPTS.render("scenario_check", country=name, norm=norm, scenario=scen),
                                       system), 0, int(mnt["scenario"]), f"{n_sc} scenarios"),
        "personas_questions": (n_q, tk.chat(PROMPTS.render("question", country=name, scenario=scen,
                                                           trait_name="Openness", trait_hint=hint), system),
                               tk.chat(PROMPTS.render("question_check", scenario=scen, question=ques,
                                                      trait_name="Openness", trait_hint=hint), system),
                               tk.chat(PROMPTS.render("answers_check", question=ques, trait_name="Openness",
                                                      high=ans, moderately_high=ans, medium=ans, moderately_low=ans,
                                                      low=ans), system),
                               int(mnt["question"]), f"{n_q} questions (scenarios x 5 traits)"),
    }
    yes_no = tk.options(list(CHECK_LABELS))
    work = []
    for rule, (n, p_gen, p_chk, p_chk2, new, what) in per.items():
        checks = [p for p in (p_chk, p_chk2) if p]
        # first attempts: a failed check regenerates (at most personas.generation.max_regenerations times)
        work.append(Work("personas", rule, gen, len(countries), len(countries) * n, p_gen, new,
                         f"{len(countries)} countries x {what} (generation)"))
        for p in checks:
            work.append(Work("personas", rule, gen, 0, len(countries) * n, p + yes_no, 0,
                             f"{len(countries)} countries x {what} (yes/no check, scored)"))
    # evaluation: MCS option scoring and OEG generation of every instrument item, per country and priming
    demo = {"statement": load_instrument("likert_tsv", demo_dir() / "personas/instruments/demo_likert.tsv", "demo"),
            "trait": load_instrument("trait", demo_dir() / "personas/instruments/demo_trait.csv", "demo"),
            "big5chat": load_instrument("big5chat", demo_dir() / "personas/instruments/demo_big5chat.csv", "demo")}
    priming = list(P["priming"])
    persona = persona_prompt(name, [norm] * int(P["priming_n_norms"]))
    mode = P["mcs"]["score"]
    cp_row = {"format": "choice", "context": scen, "question": ques}
    insts = [(i, *_instrument_rows(cfg, i, sizes)) for i in P["run_instruments"]]
    cp_items = n_q if P.get("cp_max_items") is None else min(n_q, int(P["cp_max_items"]))
    insts.append(("cp", cp_items, "cp"))

    def mcs_prompt(fam):
        row = cp_row if fam == "cp" else demo[fam].iloc[0]
        opts = [ans] * 5 if fam == "cp" else json.loads(row["options"])
        return (sum(tk.chat(_item_prompt(row, opts, mode), persona if pr == "primed" else None) for pr in priming)
                / len(priming) + tk.options(opts))

    oeg_fams = {i for i in P["run_instruments"] if P["instruments"][i].get("oeg")} | {"cp"}
    in_mcs = mcs_models(P)
    for m in P["models"]:
        n_mcs = sum(n for _, n, _ in insts) * len(priming) * len(countries)
        mean = sum(n * mcs_prompt(f) for _, n, f in insts) / max(sum(n for _, n, _ in insts), 1)
        if m in in_mcs:  # personas.mcs.exclude: OEG only
            work.append(Work("personas", "personas_mcs", m, len(countries), n_mcs, mean, 0,
                             f"{len(countries)} countries x {len(priming)} priming x "
                             + " + ".join(f"{i} {n}" for i, n, _ in insts) + " items (option scoring)"))
        oeg = [(i, n, f) for i, n, f in insts if i in oeg_fams]
        n_oeg = sum(n for _, n, _ in oeg) * len(priming) * len(countries)
        row = demo["big5chat"].iloc[0]
        p_oeg = sum(tk.chat(PROMPTS.render("oeg", context=row["context"], question=row["question"]),
                            persona if pr == "primed" else None) for pr in priming) / len(priming)
        work.append(Work("personas", "personas_oeg", m, len(countries), n_oeg, p_oeg, int(P["oeg"]["max_new_tokens"]),
                         f"{len(countries)} countries x {len(priming)} priming x "
                         + " + ".join(f"{i} {n}" for i, n, _ in oeg) + " items (generation)"))
    return work


def _monopolet(cfg: dict, sizes: dict, tk: Tokens) -> list[Work]:
    from .monopolet.manifest import load_manifest
    from .monopolet.prompts import render

    M = cfg["monopolet"]

    def manifest_dilemmas():
        if not Path(M["manifest"]).is_file():
            return None
        return len(load_manifest(M["manifest"])[1])

    n_dil = _size(sizes.get("dilemmas"), manifest_dilemmas, "monopolet dilemmas", "monopolet.dilemmas")
    sol = float(sizes.get("solutions_per_answer") or M["extraction"]["max_solutions"])
    script = " ".join(line.split(":", 1)[-1] for line in (demo_dir() / "monopolet/scripts/demo_ep01.txt").read_text(
        encoding="utf-8").splitlines() if not line.startswith("#"))
    dilemma = tk.filled(int(M["extraction"]["max_dilemma_chars"]), script)
    summary = tk.filled(300, script)
    chunk = tk.filled(int(M["chunk_sentences"]) * 120, script)
    ex = M["extraction"]
    answer = tk.filled_tokens(int(M["answers"]["max_new_tokens"]), script)
    action = tk.filled(int(ex["max_action_chars"]), script)
    solutions = json.dumps({"solutions": [{"action": action, "stance": "for"}] * round(sol)}, ensure_ascii=False)
    agents = ["panel", *M["answer_models"]]
    comparisons = M.get("comparisons") or [f"{m}_vs_panel" for m in M["answer_models"]]
    shards = int(M["shards"])
    pf = M["judge"]["prefilter"]
    # per dilemma and comparison; with the prefilter, its audited share of the skipped pairs is judged too
    passed = min(int(pf["top_k"]), sol) if pf["enabled"] else sol
    pairs = sol * passed + (float(pf["audit_fraction"]) * sol * (sol - passed) if pf["enabled"] else 0)
    work = [Work("monopolet", "monopolet_sections", M["mapping"]["model"], 1, n_dil,
                 tk.chat(render("check_intro", summary=summary, chunk=chunk)), int(M["mapping"]["max_new_tokens"]),
                 f"{n_dil} dilemma summaries x 1 check (first pass; a rejected one checks more chunks)"),
            Work("monopolet", "monopolet_dilemmas", M["dilemma"]["model"], shards, n_dil,
                 tk.chat(render("extract_dilemma", summary=summary, section=dilemma)), int(ex["max_new_tokens"]),
                 f"{n_dil} sections")]
    for m in M["answer_models"]:
        work.append(Work("monopolet", "monopolet_answers", m, shards, n_dil, tk.chat(render("ask_advice",
                                                                                          dilemma=dilemma)),
                         int(M["answers"]["max_new_tokens"]), f"{n_dil} dilemmas"))
    first = tk.chat(render("extract_solutions_answer", dilemma=dilemma, response=answer))
    post = tk.chat(render("postprocess_solutions", dilemma=dilemma, solutions=solutions))
    k = 2 if ex["postprocess"] else 1
    work.append(Work("monopolet", "monopolet_solutions", ex["model"], shards * len(agents), n_dil * len(agents) * k,
                     (first + (post if k == 2 else 0)) / k, int(ex["max_new_tokens"]),
                     f"{n_dil} dilemmas x {len(agents)} agents x "
                     + ("(extraction + post-processing)" if k == 2 else "(extraction)")))
    work.append(Work("monopolet", "monopolet_match", M["judge"]["model"], shards * len(comparisons),
                     round(n_dil * len(comparisons) * pairs),
                     tk.chat(render("judge_match", dilemma=dilemma, candidate=action, reference=action)),
                     int(M["judge"]["max_new_tokens"]),
                     f"{n_dil} dilemmas x {len(comparisons)} comparisons x {pairs:g} solution pairs"))
    # topic names (appendix B): one request per topic; "auto" finds the number when it runs, 30 stands in
    naming, n_comp = M["topics"]["naming"], M["topics"]["n_components"]
    n_topics = int(n_comp) if isinstance(n_comp, int) else 30
    phrases = "; ".join([tk.filled(20, script)] * int(M["topics"]["keyphrases"]))
    work.append(Work("monopolet", "monopolet_topic_names", naming["model"], 1, n_topics,
                     tk.chat(render("name_topic", keyphrases=phrases, terms=tk.filled(60, script))),
                     int(naming["max_new_tokens"]),
                     f"{n_topics} topics" + ("" if isinstance(n_comp, int) else " (n_components auto: 30 assumed)")))
    return work


def plan(cfg: dict, tokens: Tokens, default_model: str | None = None) -> pd.DataFrame:
    """The planning table of a validated config (``cultalign.config.load_config``); ``default_model``:
    the model of rule smoke_generate (config ``default_model`` when not given)."""
    planning = cfg["planning"]
    sizes = planning.get("input_sizes") or {}
    studies = cfg.get("studies") or ["pact", "personas", "monopolet"]
    # rule smoke_generate (scripts/models/smoke_generate.py): two 24-token generations and one
    # yes/no item on the default model (config ``default_model``, given by the rule's param)
    smoke = default_model or cfg["default_model"]
    work: list[Work] = [Work("models", "smoke_generate", smoke, 1, 2, tokens.chat("Name one greeting custom in Japan."),
                             24, "2 generations"),
                        Work("models", "smoke_generate", smoke, 0, 1,
                             tokens.chat("Is it polite to bow when greeting in Japan? Answer Yes or No.")
                             + tokens.options(["Yes", "No"]), 0, "1 scored item")]
    if "pact" in studies:
        work += _pact(cfg, sizes.get("pact") or {}, tokens)
    if "personas" in studies:
        work += _personas(cfg, sizes.get("personas") or {}, tokens)
    if "monopolet" in studies:
        work += _monopolet(cfg, sizes.get("monopolet") or {}, tokens)
    df = table(work, cfg["models"], planning)
    # rows of one rule and model (pact_behaviour: generation + letter scoring) become one
    keys = ["study", "rule", "model", "backend", "gpus", "params_b", "generated_tokens_per_s"]
    agg = df.groupby(keys, sort=False, dropna=False).agg(
        jobs=("jobs", "sum"), requests=("requests", "sum"), prompt_tokens=("prompt_tokens", "sum"),
        generated_tokens=("generated_tokens", "sum"), gpu_hours=("gpu_hours", "sum"),
        basis=("basis", "; ".join)).reset_index()
    return agg[COLUMNS]
