"""A small labelled evaluation of the solution-matching judge.

    .venv/bin/python bench/monopolet_judge.py [--config config/config.yaml]
        [--out bench/out/monopolet_judge_eval.json] [--no-shortcut] [--cache DIR]

SYNTHETIC pairs written for this project (not from the podcast).  Each
dilemma has a base action and designed variants of it, one pair per kind:

=====================  =========  ==============================================
kind                   expected   the other action is ...
=====================  =========  ==============================================
identical              match      the same text
identical_variant      match      the same text up to case, punctuation, spaces
paraphrase             match      the same action in other words
translation            match      the same action in the other language
different_action       no match   another action for the same dilemma
different_condition    no match   the base action under an added condition
different_entity       no match   the base action towards another person
different_order        no match   the same two steps in the opposite order
=====================  =========  ==============================================

Actions are Danish (as the panel's and most answers' solutions are) and
English (the judge prompt is English and small models often answer in
English); ``translation`` pairs a Danish action with an English one.

``evaluate`` runs ``matching.judge_pairs`` on every pair (no embedding
prefilter: the judge alone is measured) and returns the per-pair table and the
confusion counts (overall, per kind and per language), so the figures in
docs/monopolet.md can be recomputed.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import common
import pandas as pd

common.prepare_env()

from cultalign.monopolet.matching import RULES, JudgeSettings, judge_pairs, prompt_hashes  # noqa: E402

POSITIVE = ("identical", "identical_variant", "paraphrase", "translation")
NEGATIVE = ("different_action", "different_condition", "different_entity", "different_order")

# SYNTHETIC.  (language, dilemma, base action, {kind: other action}); identical is added for every item.
ITEMS: list[tuple[str, str, str, dict[str, str | tuple[str, str]]]] = [
    ("da", "Naboen spiller høj musik hver aften, og børnene kan ikke sove.",
     "Tal med naboen om musikken",
     {"identical_variant": "tal med naboen om musikken.",
      "paraphrase": "Tag en snak med naboen om larmen",
      "different_action": "Køb ørepropper til børnene",
      "different_condition": "Tal med naboen om musikken, hvis den stadig spiller efter klokken 22",
      "different_entity": "Tal med udlejeren om musikken"}),
    ("da", "Svigermor kommer uanmeldt på besøg hver søndag.",
     "Aftal faste besøgsdage med svigermor",
     {"identical_variant": "Aftal  faste besøgsdage med svigermor!",
      "paraphrase": "Lav en fast aftale med svigermor om, hvornår hun kommer på besøg",
      "different_action": "Tag på weekendtur hver søndag",
      "different_condition": "Aftal faste besøgsdage med svigermor, hvis din kæreste er enig",
      "different_entity": "Aftal faste besøgsdage med din egen mor"}),
    ("da", "En kollega låner min cykel uden at spørge og efterlod den med fladt dæk.",
     "Bed kollegaen om at betale for reparationen",
     {"identical_variant": "Bed kollegaen om at betale for reparationen.",
      "paraphrase": "Få kollegaen til at betale for at lappe dækket",
      "different_action": "Køb en cykellås",
      "different_condition": "Bed kollegaen om at betale for reparationen, hvis det sker igen",
      "different_entity": "Bed chefen om at betale for reparationen",
      "different_order": ("Køb en cykellås, og tal derefter med kollegaen",
                          "Tal med kollegaen, og køb derefter en cykellås")}),
    ("da", "Min bedste ven har glemt min fødselsdag tre år i træk.",
     "Fortæl vennen at du blev ked af det",
     {"identical_variant": "Fortæl vennen, at du blev ked af det",
      "paraphrase": "Sig til din ven, at det gjorde dig trist",
      "different_action": "Afbryd venskabet",
      "different_condition": "Fortæl vennen at du blev ked af det, hvis han glemmer det igen næste år",
      "different_entity": "Fortæl vennens kæreste at du blev ked af det"}),
    ("da", "Min søster vil låne mange penge af mig igen.",
     "Lav en skriftlig aftale om tilbagebetaling",
     {"identical_variant": "LAV EN SKRIFTLIG AFTALE OM TILBAGEBETALING",
      "paraphrase": "Skriv en kontrakt om, hvordan pengene skal betales tilbage",
      "different_action": "Giv hende pengene som gave",
      "different_condition": "Lav en skriftlig aftale om tilbagebetaling, hvis beløbet er over 10.000 kroner",
      "different_entity": "Lav en skriftlig aftale om tilbagebetaling med dine forældre",
      "different_order": ("Spørg hvad pengene skal bruges til, og lav så en skriftlig aftale",
                          "Lav en skriftlig aftale, og spørg så hvad pengene skal bruges til")}),
    ("da", "Min chef skriver til mig sent om aftenen og forventer svar.",
     "Tal med chefen om forventningerne",
     {"identical_variant": "Tal med chefen om forventningerne .",
      "paraphrase": "Tag en samtale med din chef om, hvad der forventes af dig",
      "different_action": "Find et nyt job",
      "different_condition": "Tal med chefen om forventningerne, hvis beskederne fortsætter næste måned",
      "different_entity": "Tal med dine kolleger om forventningerne"}),
    ("da", "Min teenagesøn vil ikke hjælpe med opvasken.",
     "Lav en fast plan for sønnens pligter",
     {"identical_variant": "lav en fast plan for sønnens pligter",
      "paraphrase": "Aftal et fast skema for, hvilke pligter din søn har",
      "different_action": "Tag selv opvasken hver dag",
      "different_condition": "Lav en fast plan for sønnens pligter, når han fylder 16",
      "different_entity": "Lav en fast plan for din datters pligter",
      "different_order": ("Tal med sønnen, og lav bagefter en plan for pligterne",
                          "Lav en plan for pligterne, og tal bagefter med sønnen")}),
    ("da", "Min nabo parkerer altid foran min indkørsel.",
     "Bank på og tal med naboen",
     {"identical_variant": "Bank på, og tal med naboen.",
      "paraphrase": "Gå over og snak med naboen om parkeringen",
      "different_action": "Ring til kommunen",
      "different_condition": "Bank på og tal med naboen, hvis bilen holder der mere end en time",
      "different_entity": "Bank på og tal med naboens søn",
      "different_order": ("Tal med naboen, og ring bagefter til kommunen",
                          "Ring til kommunen, og tal bagefter med naboen")}),
    ("en", "My flatmate never cleans the kitchen.",
     "Talk to your flatmate about cleaning the kitchen",
     {"identical_variant": "talk to your flatmate about cleaning the kitchen.",
      "paraphrase": "Have a chat with your roommate about keeping the kitchen clean",
      "translation": "Tal med din bofælle om at gøre køkkenet rent",
      "different_action": "Hire a cleaner",
      "different_condition": "Talk to your flatmate about cleaning the kitchen if it is still dirty on Sunday",
      "different_entity": "Talk to your landlord about cleaning the kitchen",
      "different_order": ("Make a cleaning rota, then talk to your flatmate",
                          "Talk to your flatmate, then make a cleaning rota")}),
    ("en", "A friend keeps cancelling our plans at the last minute.",
     "Tell your friend that the cancellations hurt you",
     {"identical_variant": "Tell your friend that the cancellations hurt you!",
      "paraphrase": "Let your friend know you feel hurt when plans are cancelled",
      "translation": "Fortæl din ven, at aflysningerne gør dig ked af det",
      "different_action": "Stop inviting the friend",
      "different_condition": "Tell your friend that the cancellations hurt you if it happens once more",
      "different_entity": "Tell your friend's partner that the cancellations hurt you"}),
    ("en", "My neighbour's dog barks all day while they are at work.",
     "Leave a friendly note for the neighbour",
     {"identical_variant": "Leave a friendly  note for the neighbour.",
      "paraphrase": "Put a polite message in your neighbour's letterbox",
      "translation": "Læg en venlig seddel til naboen",
      "different_action": "Call the police",
      "different_condition": "Leave a friendly note for the neighbour if the barking continues next week",
      "different_entity": "Leave a friendly note for the landlord"}),
    ("en", "My colleague takes credit for my work in meetings.",
     "Talk privately with the colleague",
     {"identical_variant": "Talk privately with the colleague.",
      "paraphrase": "Have a private conversation with your coworker",
      "translation": "Tal med kollegaen under fire øjne",
      "different_action": "Complain in front of the whole team",
      "different_condition": "Talk privately with the colleague if it happens again",
      "different_entity": "Talk privately with your manager",
      "different_order": ("Talk privately with the colleague, then tell your manager",
                          "Tell your manager, then talk privately with the colleague")}),
]


def labelled_pairs() -> tuple[pd.DataFrame, dict[str, str]]:
    """The pair table (judge_pairs input, ``judge`` all True) with ``kind``,
    ``language`` and ``expected``, and the dilemma texts by id."""
    rows, dilemmas = [], {}
    for k, (lang, dilemma, base, variants) in enumerate(ITEMS):
        did = f"eval_{lang}_{k:02d}"
        dilemmas[did] = dilemma
        for kind, other in [("identical", base), *variants.items()]:
            cand, ref = other if isinstance(other, tuple) else (other, base)
            if kind not in POSITIVE + NEGATIVE:
                raise ValueError(f"monopolet_judge.ITEMS[{k}]: unknown kind {kind!r}")
            rows.append({"dilemma_id": did, "language": "da-en" if kind == "translation" else lang, "kind": kind,
                         "expected": int(kind in POSITIVE), "solution_cand": len(rows), "action_cand": cand,
                         "stance_cand": "advised", "solution_ref": 0, "action_ref": ref, "stance_ref": "advised",
                         "judge": True})
    return pd.DataFrame(rows), dilemmas


def confusion(df: pd.DataFrame) -> dict[str, int | float]:
    """tp/fn/fp/tn of ``match`` against ``expected``, invalid outputs counted apart (as M = 0 in tp..tn)."""
    e, m = df["expected"].astype(int), df["match"].astype(int)
    c = {"n": len(df), "tp": int(((e == 1) & (m == 1)).sum()), "fn": int(((e == 1) & (m == 0)).sum()),
         "fp": int(((e == 0) & (m == 1)).sum()), "tn": int(((e == 0) & (m == 0)).sum()),
         "invalid": int((~df["valid"].astype(bool)).sum())}
    c["accuracy"] = round((c["tp"] + c["tn"]) / c["n"], 3) if c["n"] else float("nan")
    return c


def evaluate(client, settings: JudgeSettings, seed: int, max_attempts: int = 3,
             pairs: pd.DataFrame | None = None, dilemmas: dict[str, str] | None = None) -> tuple[pd.DataFrame, dict]:
    if pairs is None:
        pairs, dilemmas = labelled_pairs()
    out = judge_pairs(client, pairs, dilemmas or {}, settings, seed, max_attempts=max_attempts)
    summary = {"overall": confusion(out),
               "by_kind": {k: confusion(g) for k, g in out.groupby("kind", sort=False)},
               "by_language": {k: confusion(g) for k, g in out.groupby("language", sort=False)},
               "decisions": {k: int(v) for k, v in out["decision"].value_counts().items()},
               "rule_violated_rate_on_positives": {
                   r: round(float(out.loc[(out["expected"] == 1) & out["judged"], f"{r}_violated"]
                                  .astype(float).mean()), 3)
                   for r in RULES}}
    return out, summary


def main(argv: list[str] | None = None) -> None:
    import yaml

    from cultalign.models.client import load_client

    root = common.ROOT
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--config", default=str(root / "config" / "config.yaml"))
    ap.add_argument("--out", default=str(common.OUT / "monopolet_judge_eval.json"))
    ap.add_argument("--no-shortcut", action="store_true", help="send identical pairs to the judge too")
    ap.add_argument("--few-shot", choices=["config", "on", "off"], default="config",
                    help="override monopolet.judge.few_shot")
    ap.add_argument("--max-reason-chars", type=int, default=None, help="override monopolet.judge.max_reason_chars")
    ap.add_argument("--max-new-tokens", type=int, default=None, help="override monopolet.judge.max_new_tokens")
    ap.add_argument("--cache", default=None, help="request cache folder (default: none, every pair generated)")
    ap.add_argument("--label", default="", help="name of this run in the output")
    args = ap.parse_args(argv)
    cfg = yaml.safe_load(Path(args.config).read_text())
    mono = cfg["monopolet"]
    settings = JudgeSettings.from_config(mono["judge"])
    if args.no_shortcut:
        settings.identical_shortcut = False
    if args.max_reason_chars is not None:
        settings.max_reason_chars = args.max_reason_chars
    if args.max_new_tokens is not None:
        settings.max_new_tokens = args.max_new_tokens
    if args.few_shot != "config":
        settings.few_shot = args.few_shot == "on"
    client = load_client(cfg["models"], settings_model(mono), args.cache, writer="judge-eval",
                         retry_temperature=cfg["retry"]["temperature"])
    t0 = time.perf_counter()
    out, summary = evaluate(client, settings, cfg.get("seed", 1), cfg["retry"]["max_attempts"])
    summary.update({"label": args.label, "model": settings_model(mono), "settings": {
        k: v for k, v in settings.__dict__.items() if k != "prefilter"}, "prompt_templates": prompt_hashes(),
        "model_requests": client.stats["model_requests"], "wall_s": round(time.perf_counter() - t0, 1)})
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(summary, indent=2, default=str))
    out.to_csv(Path(args.out).with_suffix(".pairs.tsv"), sep="\t", index=False)
    print(json.dumps({k: summary[k] for k in ("overall", "by_kind", "by_language", "decisions")}, indent=1))


def settings_model(mono: dict) -> str:
    return mono["judge"]["model"]


if __name__ == "__main__":
    main()
