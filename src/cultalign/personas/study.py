"""What the workflow asks of the CulturalPersonas study (personas): the hooks of ``cultalign.studies``.

Planning (``plan``), the parse-time check of option scoring (``scoring_uses``,
``scoring_problems``), external inputs and stand-ins for preflight and the rehearsal
(``STAND_INS``, ``external_inputs``, ``input_active``, ``model_inputs``), hub folders
(``hub_folders``) and the real-data tables of ``rules/personas/real_data.smk`` (``REAL_DATA_TABLES``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable

from ..inputs import DEMO_DIR, ExternalInput, _get, marked_synthetic
from ..planning import Tokens, Work, _size, demo_dir
from ..scoring_check import ScoringUse
from ..studies import no_hub_folders, no_model_inputs

STAND_INS = [
    ("personas.human.files", lambda c: _get(c, "personas.human.source") == "synthetic",
     "resources/demo/generated/personas/human",
     "personas.human.source synthetic: rule personas_demo_johnson writes SYNTHETIC Johnson-layout files"),
]
REAL_DATA_TABLES = ("results/personas/real_data/release_counts.tsv",
                    "results/personas/real_data/ipip_item_counts.tsv",
                    "results/personas/real_data/repro_japan.tsv")


def _instrument_rows(cfg: dict, name: str, sizes: dict) -> tuple[int, str]:
    """(items, format family) of a personas instrument: counted from its file when present."""
    from .instruments import load_instrument

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
    from .evaluate import _item_prompt, mcs_models, persona_prompt
    from .generate import CHECK_LABELS
    from .instruments import load_instrument
    from .prompts import PROMPTS

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


def _personas_uses(config: dict) -> Iterable[ScoringUse]:
    from .evaluate import LABELS, mcs_mode, mcs_models
    from .generate import CHECK_LABELS

    pc = config.get("personas") or {}
    gen = pc.get("generator_model")
    if gen:
        for rule in ("personas_norms", "personas_scenarios", "personas_questions"):
            yield ScoringUse(rule, "personas.generator_model (self-checks)", gen, tuple(CHECK_LABELS))
    mcs = pc.get("mcs") or {}
    evaluated = mcs_models(pc)
    for i, m in enumerate(pc.get("models") or []):
        if m not in evaluated:
            continue  # personas.mcs.exclude: no MCS rule scores with it
        mode = mcs_mode(mcs, m)
        key = f"personas.mcs.score_by_model.{m}" if m in (mcs.get("score_by_model") or {}) else "personas.mcs.score"
        # MCS items have up to len(LABELS) options; label mode scores their letters
        labels = tuple(LABELS[:5]) if mode == "label" else None
        for rule in ("personas_mcs", "personas_release_mcs"):
            yield ScoringUse(rule, f"{key} = {mode!r} (model at personas.models[{i}])", m, labels)


def scoring_problems(config: dict, models: dict) -> list[str]:
    """Keys under personas.mcs that name a model personas.models lacks, and MCS models scored in
    different ways."""
    problems = []
    pc = config.get("personas") or {}
    for sub in ("score_by_model", "exclude"):
        for m in ((pc.get("mcs") or {}).get(sub) or {}):
            if m not in (pc.get("models") or []):
                problems.append(f"config key 'personas.mcs.{sub}.{m}': {m!r} is not one of "
                                f"personas.models {pc.get('models')}")
    problems += _mcs_methods_problem(pc, models)
    return problems


def _mcs_methods_problem(pc: dict, models: dict) -> list[str]:
    """One scoring method for every MCS model (paper section 4.3.1: log-probabilities over the options,
    all models prompted the same way): the Table 2/6 gains average over models, so a table that mixes
    whole-option log-probs with first-token label log-probs averages different measurements."""
    from .evaluate import mcs_mode, mcs_models

    methods = {m: (models[m].scoring_strategy, mcs_mode(pc.get("mcs") or {}, m))
               for m in mcs_models(pc) if m in models}
    # a model asked for scoring it cannot do fails by itself (check_scoring names it)
    methods = {m: v for m, v in methods.items() if v[0] != "none" and v != ("first_token", "text")}
    if len(set(methods.values())) <= 1:
        return []
    listed = ", ".join(f"{m}: {s} log-probs of the option {'letters' if mode == 'label' else 'texts'}"
                       for m, (s, mode) in methods.items())
    return [f"config key 'personas.mcs.exclude': the MCS models are scored in different ways ({listed}); "
            "every MCS model is scored the same way (one method per table): name a model that cannot give "
            "the others' option log-probabilities under personas.mcs.exclude with its reason, or set "
            "personas.mcs.score / score_by_model so that all agree"]


def external_inputs(config: dict, base: Path, marks: list[str]) -> list[ExternalInput]:
    """The corpus folders of the countries that run (or the demo texts rendered to PDF)."""
    return _corpus_inputs(config, base, marks)


def _corpus_inputs(config: dict, base: Path, marks: list[str]) -> list[ExternalInput]:
    corpus = _get(config, "personas.corpus", {}) or {}
    folders = corpus.get("folders") or {}
    out = []
    run = _get(config, "personas.run_countries", []) or []
    if corpus.get("demo_dir") and any(not folders.get(c) for c in run):
        key = "personas.corpus.demo_dir"
        out.append(ExternalInput(key, "folder", corpus["demo_dir"], present=(base / corpus["demo_dir"]).is_dir(),
                                 synthetic=marked_synthetic(key, marks), standin=True,
                                 note="the SYNTHETIC demo texts rendered to PDF (rule personas_demo_pdf)"))
    for country in run:
        key = f"personas.corpus.folders.{country}"
        folder = folders.get(country)
        if folder:
            p = base / folder
            n = len(list(p.glob("*.pdf"))) if p.is_dir() else 0
            out.append(ExternalInput(key, "folder", folder, present=n > 0, synthetic=marked_synthetic(key, marks),
                                     note=f"{n} PDF(s)" if p.is_dir() else "folder missing",
                                     standin=folder.startswith(DEMO_DIR)))
        else:
            demo = f"{corpus.get('demo_dir') or ''}/{country}.txt"
            out.append(ExternalInput(key, "folder", f"resources/demo/generated/personas/corpus/{country}",
                                     made_by="personas_demo_pdf", present=(base / demo).exists(),
                                     synthetic=marked_synthetic(key, marks), standin=True,
                                     note=f"no folder: the demo text {demo} rendered to PDF (SYNTHETIC)"))
    return out


def input_active(key: str, config: dict) -> bool:
    """Of `personas.instruments`, the instruments that run (personas.run_instruments)."""
    if key.startswith("personas.instruments."):
        return key.split(".")[2] in set(_get(config, "personas.run_instruments", []) or [])
    return True


plan = _personas
scoring_uses = _personas_uses
model_inputs = no_model_inputs
hub_folders = no_hub_folders
