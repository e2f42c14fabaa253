"""MCS (option log-probabilities) and OEG (generation + embedding mapping) evaluation.

Both produce, per item, a probability distribution over the item's options
in canonical order; ``sample_trait_scores`` then draws ``n`` simulated
respondents (n = the country's human sample size) and scores each trait as
the mean Likert score of its items, like the human data.
"""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pandas as pd

from cultalign.core.seeds import derive_seed
from cultalign.models import ChatRequest, SamplingParams, ScoreItem

from .common import TRAITS, split_sentences, ttr_of_sentences, type_token_ratio  # noqa: F401 (re-exported)
from .prompts import PROMPTS

LABELS = "ABCDEFGHIJ"
EVAL_TEMPLATES = ("persona", "mcs_statement", "mcs_choice", "oeg")


_COUNT_WORDS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine", 10: "ten"}


def _norm_clause(text: str) -> str:
    """A norm as a clause of the persona sentence: whitespace collapsed, a leading list number and the
    final full stop removed (the sentence supplies its own)."""
    t = re.sub(r"^\s*\d+[.)]\s*", "", " ".join(str(text).split()))
    return t.rstrip(" .;")


def persona_prompt(country_name: str, norms: list[str]) -> str:
    """The paper's priming prompt (section 4, verbatim for two norms) with every norm of ``norms``:
    "... practice many of them, two of which include: {norm1} and {norm2}."."""
    if len(norms) < 2:
        raise ValueError(f"persona priming for {country_name} needs at least two norms, got {len(norms)}")
    clauses = [_norm_clause(n) for n in norms]
    listed = ", ".join(clauses[:-1]) + " and " + clauses[-1]
    return PROMPTS.render("persona", country=country_name, count=_COUNT_WORDS.get(len(clauses), str(len(clauses))),
                          norms=listed)


class Priming:
    """Persona priming of one country: for each item, ``n_norms`` norms drawn without replacement
    from the country's ``pool`` with a seed derived from (seed, country, instrument, item_id), in
    the paper's prompt.  The draw is per item: every prompt names its own norms, reproducibly."""

    def __init__(self, country_name: str, pool: list[str], n_norms: int, seed: int, country: str):
        pool = [p for p in pool if _norm_clause(p)]
        if n_norms < 2:
            raise ValueError(f"persona priming needs at least two norms per prompt (config key "
                             f"personas.priming_n_norms), got {n_norms}")
        if len(pool) < n_norms:
            raise ValueError(f"persona priming for {country_name} draws {n_norms} norms per prompt (config key "
                             f"personas.priming_n_norms) but the country has {len(pool)}")
        self.country_name, self.pool, self.n_norms, self.seed, self.country = (
            country_name, list(pool), int(n_norms), seed, country)

    def norms_for(self, instrument: str, item_id) -> list[str]:
        rng = np.random.default_rng(derive_seed(self.seed, "personas", "eval", "priming_norms", self.country,
                                                instrument, str(item_id)))
        return [self.pool[int(k)] for k in rng.choice(len(self.pool), size=self.n_norms, replace=False)]

    def __call__(self, row) -> str:
        return persona_prompt(self.country_name, self.norms_for(row["instrument"], row["item_id"]))

    def record(self) -> dict:
        """What a sidecar records of the priming: the draw, its size and the pool."""
        return {"draw": "seeded per item", "n_norms": self.n_norms, "pool_size": len(self.pool), "pool": self.pool}

    def template_example(self) -> str:
        """The prompt with the first ``n_norms`` norms of the pool, to show the wording in a sidecar."""
        return persona_prompt(self.country_name, self.pool[:self.n_norms])

    def column(self, items: pd.DataFrame) -> list[str]:
        """The norms each item's prompt names (JSON list per row), for the per-item tables."""
        return [json.dumps(self.norms_for(r["instrument"], r["item_id"]), ensure_ascii=False)
                for _, r in items.iterrows()]


def system_prompt(persona, row) -> str | None:
    """The system prompt of one item: None (unprimed), one text for every item, or a per-item
    :class:`Priming` draw."""
    return persona(row) if callable(persona) else persona


def _item_prompt(row, shown: list[str], mode: str) -> str:
    listing = "\n".join(f"{LABELS[k]}. {o}" if mode == "label" else f"- {o}" for k, o in enumerate(shown))
    if row["format"] == "statement":
        return PROMPTS.render("mcs_statement", statement=row["question"], options=listing)
    return PROMPTS.render("mcs_choice", context=row["context"], question=row["question"], options=listing)


def mcs_models(personas: dict) -> list[str]:
    """The models evaluated with MCS: ``personas.models`` less those in ``personas.mcs.exclude`` (each
    with its stated reason, e.g. a hosted model without whole-option log-probabilities)."""
    excluded = (personas.get("mcs") or {}).get("exclude") or {}
    return [m for m in personas.get("models") or [] if m not in excluded]


def mcs_mode(mcs: dict, model: str) -> str:
    """The MCS scoring mode of ``model``: ``personas.mcs.score_by_model[model]``, else ``score``."""
    return (mcs.get("score_by_model") or {}).get(model, mcs["score"])


def mcs_score_items(items: pd.DataFrame, persona, mode: str, seed: int,
                    country: str) -> tuple[list[ScoreItem], list[list[int]]]:
    """The model requests of MCS: one ScoreItem per item with its options in a seeded shuffled
    order, and the shuffles (shown position -> canonical index)."""
    if mode not in ("text", "label"):
        raise ValueError(f"mcs mode must be 'text' or 'label', got {mode!r}")
    score_items, perms = [], []
    for _, r in items.iterrows():
        opts = json.loads(r["options"])
        rng = np.random.default_rng(derive_seed(seed, "personas", "eval", "shuffle", r["instrument"], r["item_id"],
                                                country))
        perm = [int(x) for x in rng.permutation(len(opts))]  # shown position -> canonical index
        shown = [opts[j] for j in perm]
        conts = [LABELS[k] for k in range(len(shown))] if mode == "label" else shown
        score_items.append(ScoreItem.make(_item_prompt(r, shown, mode), conts, system=system_prompt(persona, r),
                                          labels=conts if mode == "label" else None))
        perms.append(perm)
    return score_items, perms


def prompt_token_counts(client, score_items: list[ScoreItem]) -> list[int]:
    """Tokens of each rendered scoring prompt, counted with the model's own chat template and
    tokenizer exactly as the transformers backend feeds them (no special tokens added).  NaN for
    an API model without a local tokenizer (openai backend, no ``path``): its provider counts them."""
    if client.spec.backend == "openai" and not client.spec.path:
        return [math.nan] * len(score_items)
    tok = client.tokenizer()
    return [len(tok(client.render(it.messages), add_special_tokens=False)["input_ids"]) for it in score_items]


MCS_COLUMNS = ("instrument", "item_id", "trait", "shuffle", "logprobs_shown", "token_counts_shown", "probs",
               "scores", "valid_mass", "expected_score", "scoring", "labels_missing", "valid")


def run_mcs(client, items: pd.DataFrame, persona, mode: str, seed: int, country: str,
            normalise: str, count_tokens: bool = False) -> pd.DataFrame:
    """Score every option of every item (options shuffled per item, shuffle recorded).

    mode ``text``: the continuation is the whole option text; ``label``: the
    option's letter.  ``valid_mass`` is the model's total probability on the
    valid continuations; ``probs`` are renormalised over them (``normalise``
    ``mean`` uses per-token mean log-probabilities, a length correction).
    ``count_tokens`` adds ``prompt_tokens`` (rendered prompt) and ``cached``
    (answered from the request cache, no model call) per item.  ``scoring`` records the model's
    strategy (``full``, or ``first_token``: the letters' top-k log-probs, label mode only) and
    ``labels_missing`` the options whose label was outside the provider's top-k."""
    score_items, perms = mcs_score_items(items, persona, mode, seed, country)
    scores = client.score_options(score_items)
    p_tokens = prompt_token_counts(client, score_items) if count_tokens else None
    rows = []
    for i, ((_, r), perm, sc) in enumerate(zip(items.iterrows(), perms, scores)):
        lp = sc.mean_token_logprobs if normalise == "mean" else sc.logprobs
        m = max(lp)
        ex = [math.exp(x - m) for x in lp] if math.isfinite(m) else [math.nan] * len(lp)
        shown_p = [e / sum(ex) for e in ex]
        canon = [0.0] * len(perm)
        for k, j in enumerate(perm):
            canon[j] = shown_p[k]
        sc_vals = json.loads(r["scores"])
        rows.append({"instrument": r["instrument"], "item_id": r["item_id"], "trait": r["trait"],
                     "shuffle": json.dumps(perm), "logprobs_shown": json.dumps([round(x, 4) for x in sc.logprobs]),
                     "token_counts_shown": json.dumps(sc.token_counts),
                     "probs": json.dumps([round(p, 6) for p in canon]),
                     "scores": r["scores"], "valid_mass": sc.valid_mass,
                     "expected_score": float(np.dot(canon, sc_vals)), "scoring": sc.strategy,
                     "labels_missing": sc.missing,
                     # full: every option scored; first_token: at least one label in the top-k
                     "valid": bool(np.isfinite(sc.logprobs).all() if sc.strategy == "full"
                                   else np.isfinite(sc.logprobs).any())})
        if count_tokens:
            rows[-1].update(prompt_tokens=p_tokens[i], option_tokens=int(sum(sc.token_counts)),
                            cached=bool(sc.cached))
    if rows:
        return pd.DataFrame(rows)
    # no item (e.g. no generated question passed its checks): an empty table with its columns
    return pd.DataFrame(columns=[*MCS_COLUMNS, *(("prompt_tokens", "option_tokens", "cached") if count_tokens else ())])


def sample_trait_scores(item_probs: pd.DataFrame, n: int, seed: int) -> pd.DataFrame:
    """``n`` simulated respondents: each item answered by sampling its option distribution;
    trait score = mean item score over the trait's items (NaN for a trait without items).
    ``seed``: the cell's seed; the draws take their own stream from it."""
    rng = np.random.default_rng(derive_seed(seed, "personas", "eval", "trait_samples"))
    per_trait: dict[str, list[np.ndarray]] = {t: [] for t in TRAITS}
    for _, r in item_probs[item_probs["valid"].astype(bool)].iterrows():
        p = np.asarray(json.loads(r["probs"]), dtype=float)
        s = np.asarray(json.loads(r["scores"]), dtype=float)
        draws = rng.choice(len(p), size=n, p=p / p.sum())
        per_trait[r["trait"]].append(s[draws])
    out = pd.DataFrame({"sample": np.arange(n)})
    for t in TRAITS:
        out[t] = np.vstack(per_trait[t]).mean(axis=0) if per_trait[t] else np.nan
    return out


# -- OEG -------------------------------------------------------------------
def oeg_requests(items: pd.DataFrame, persona, seed: int, country: str,
                 sampling: dict) -> list[ChatRequest]:
    """One request per item, each with its own derived seed; ``sampling``: temperature and
    max_new_tokens (config ``personas.oeg``).  Greedy decoding (temperature 0) does not use the
    seed, so there it is 0 for all: identical decoding settings let the model layer batch the
    requests (it batches requests whose settings, seed included, match)."""
    params = SamplingParams.from_config(sampling)
    reqs = []
    for _, r in items.iterrows():
        prompt = PROMPTS.render("oeg", context=r["context"], question=r["question"])
        s = (derive_seed(seed, "personas", "eval", "oeg", r["instrument"], r["item_id"], country)
             if params.temperature > 0 else 0)
        reqs.append(ChatRequest.make(prompt, params.with_seed(s), system=system_prompt(persona, r)))
    return reqs


MAX_SENTENCES = 2  # the paper's OEG answers are one to two sentences


def keep_sentences(text: str, n: int = MAX_SENTENCES) -> dict:
    """The answer cut to its first ``n`` complete sentences.  Text after them is dropped
    (``trimmed``); an answer without any complete sentence is kept whole and marked unfinished
    (``complete`` False - the generation stopped mid-sentence, e.g. at the token limit)."""
    sents, rest = split_sentences(text)
    if not sents:
        return {"text": rest, "sentences": 0, "complete": False, "trimmed": False}
    kept = sents[:n]
    return {"text": " ".join(kept), "sentences": len(kept), "complete": True,
            "trimmed": len(sents) > n or bool(rest)}


def _oeg_parse(text: str) -> str:
    t = keep_sentences(text)["text"]
    if len(re.findall(r"[A-Za-z]+", t)) < 3:
        raise ValueError("response has fewer than 3 words")
    return t


def generate_oeg(client, request_sets: list[list[ChatRequest]]) -> list[list]:
    """All OEG requests of a job in one call (so they batch); results split back per set.
    Answers with fewer than three words are retried with a new seed (the client's
    ``max_attempts`` in all), then kept invalid."""
    flat = [r for rs in request_sets for r in rs]
    parsed = client.generate_parsed(flat, _oeg_parse) if flat else []
    out, pos = [], 0
    for rs in request_sets:
        out.append(parsed[pos : pos + len(rs)])
        pos += len(rs)
    return out


def oeg_table(items: pd.DataFrame, parsed: list) -> pd.DataFrame:
    out = items[["instrument", "item_id", "trait", "options", "scores"]].copy().reset_index(drop=True)
    out["response"] = [p.value if p.valid else "" for p in parsed]
    out["raw"] = [p.raw for p in parsed]
    out["valid"] = [p.valid for p in parsed]
    out["attempts"] = [p.n_attempts for p in parsed]
    # the kept answer vs the raw generation: sentences kept, whether text after the second sentence
    # was dropped, whether the answer ends a sentence (False = cut mid-sentence)
    shape = [keep_sentences(p.raw) for p in parsed]
    out["sentences"] = [k["sentences"] for k in shape]
    out["trimmed"] = [k["trimmed"] for k in shape]
    out["complete"] = [k["complete"] for k in shape]
    return out


def _softmax(x: np.ndarray, tau: float) -> np.ndarray:
    z = x / tau
    z = z - z.max()
    e = np.exp(z)
    return e / e.sum()


def fit_temperature(option_embs: list[np.ndarray], option_scores: list[list[float]],
                    bounds=(0.005, 2.0)) -> dict:
    """Temperature scaling of cosine similarities, fitted on labelled probes.

    A probe is an option of item j (its Likert score known) compared with the
    options of another item i of the same instrument: the likelihood is the
    softmax(sim / tau) mass on item i's options with the probe's score.  tau
    maximises the mean log-likelihood (leave-item-out: an item never probes
    itself, where cosine = 1 would make it trivial)."""
    probes = []
    for i, (Ei, si) in enumerate(zip(option_embs, option_scores)):
        for j, (Ej, sj) in enumerate(zip(option_embs, option_scores)):
            if i == j:
                continue
            sims = Ej @ Ei.T  # probes x options of i
            for k in range(len(sj)):
                hit = np.asarray(si) == sj[k]
                if hit.any() and not hit.all():
                    probes.append((sims[k], hit))
    if not probes:
        return {"tau": 1.0, "n_probes": 0, "loglik_tau1": math.nan, "loglik_fit": math.nan,
                "acc": math.nan, "note": "no probes (fewer than two items): tau = 1 (uncalibrated)"}

    def nll(tau):
        return -float(np.mean([math.log(max(_softmax(s, tau)[h].sum(), 1e-12)) for s, h in probes]))

    # (imported here: the workflow's parse-time scoring check imports this module, and scipy.optimize
    # costs every Snakemake start about half a second)
    from scipy.optimize import minimize_scalar

    res = minimize_scalar(nll, bounds=bounds, method="bounded")
    acc = float(np.mean([h[int(np.argmax(s))] for s, h in probes]))
    return {"tau": float(res.x), "n_probes": len(probes), "loglik_tau1": -nll(1.0), "loglik_fit": -float(res.fun),
            "acc": acc, "note": ""}


OEG_MAPPINGS = ("softmax", "calibrated")


def map_responses(responses: pd.DataFrame, embed, tau: float, mapping: str = "softmax") -> pd.DataFrame:
    """Cosine similarity of each response to each option -> a distribution over the options.

    ``mapping`` ``softmax`` (the paper, section 4.3.2: the similarities form a soft distribution;
    the authors' code takes softmax(sim)) or ``calibrated`` (softmax(sim / tau), ``tau`` fitted by
    :func:`fit_temperature`).  ``probs`` (what the sampling reads) is the chosen one; both are kept:
    ``probs_uncalibrated`` (tau = 1, with ``*_uncalibrated`` entropy and top mass) and
    ``probs_calibrated`` (with ``norm_entropy``, ``max_prob``): cosine similarities lie in a narrow
    band, so the plain softmax is nearly uniform."""
    if mapping not in OEG_MAPPINGS:
        raise ValueError(f"OEG mapping must be one of {OEG_MAPPINGS} (config key personas.oeg_mapping), "
                         f"got {mapping!r}")
    out = responses.copy()
    sims_col, raw_col, cal_col, ent_raw, ent_cal, maxp_raw, maxp_cal, exp_s = [], [], [], [], [], [], [], []
    for _, r in out.iterrows():
        opts = json.loads(r["options"])
        if not r["valid"]:
            for col in (sims_col, raw_col, cal_col):
                col.append("")
            for col in (ent_raw, ent_cal, maxp_raw, maxp_cal, exp_s):
                col.append(math.nan)
            continue
        vecs = np.asarray(embed([r["response"], *opts]))
        sims = vecs[1:] @ vecs[0]
        p_raw, p_cal = _softmax(sims, 1.0), _softmax(sims, tau)
        sims_col.append(json.dumps([round(float(x), 4) for x in sims]))
        raw_col.append(json.dumps([round(float(x), 6) for x in p_raw]))
        cal_col.append(json.dumps([round(float(x), 6) for x in p_cal]))
        ent_raw.append(float(-(p_raw * np.log(p_raw)).sum() / math.log(len(opts))))
        ent_cal.append(float(-(p_cal * np.log(np.maximum(p_cal, 1e-300))).sum() / math.log(len(opts))))
        maxp_raw.append(float(p_raw.max()))
        maxp_cal.append(float(p_cal.max()))
        exp_s.append(float(np.dot(p_raw if mapping == "softmax" else p_cal, json.loads(r["scores"]))))
    out["similarities"] = sims_col
    out["probs_uncalibrated"] = raw_col
    out["probs_calibrated"] = cal_col
    out["probs"] = raw_col if mapping == "softmax" else cal_col
    out["mapping"] = mapping
    out["norm_entropy_uncalibrated"] = ent_raw
    out["norm_entropy"] = ent_cal
    out["max_prob_uncalibrated"] = maxp_raw
    out["max_prob"] = maxp_cal
    out["expected_score"] = exp_s
    out["tau"] = tau
    return out


def calibrate_items(items: pd.DataFrame, embed) -> dict:
    embs, scores = [], []
    for _, r in items.iterrows():
        embs.append(np.asarray(embed(json.loads(r["options"]))))
        scores.append(json.loads(r["scores"]))
    return fit_temperature(embs, scores)
