"""Generated tables -> the published release layout, and reading release norms."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd

from ..core.inputs import InputError, read_json, read_table
from .common import LEVELS, TRAIT_NAMES


def _valid(df: pd.DataFrame) -> pd.DataFrame:
    return df[df["valid"].astype(str).str.lower().isin(("true", "1"))].reset_index(drop=True)


def export_release(norm_files, scenario_files, question_files, names: dict[str, str], codes: dict[str, str],
                   out_dir) -> dict:
    """Write datasets/cp/{norms,scenarios,questions,answers} like the published repository (valid rows only;
    the row counts of the generated tables, invalid rows included, stay in their sidecars).  A table's
    country is its file name; ``names``/``codes``: country id -> display name / release file code."""
    out = Path(out_dir) / "datasets" / "cp"
    for sub in ("norms", "scenarios", "questions", "answers"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    blocks, counts = [], {}
    for nf, sf, qf in zip(norm_files, scenario_files, question_files):
        norms = _valid(pd.read_csv(nf, sep="\t", keep_default_na=False))
        scen = _valid(pd.read_csv(sf, sep="\t", keep_default_na=False))
        ques = _valid(pd.read_csv(qf, sep="\t", keep_default_na=False))
        country = Path(nf).stem
        code = codes[country]
        blocks.append({"country": names[country],
                       "norms": [{"id": int(r["norm_id"]) + 1, "text": r["norm"]} for _, r in norms.iterrows()]})
        sid_map = {int(s): k for k, s in enumerate(scen["scenario_id"])}
        pd.DataFrame({"country": code, "norm_text": scen["norm"], "norm_id": scen["norm_id"],
                      "scenario": scen["scenario"]}).to_csv(out / "scenarios" / f"all_{code}_scenarios.csv",
                                                            index=False)
        ques = ques[ques["scenario_id"].astype(int).isin(sid_map)].reset_index(drop=True)
        pd.DataFrame({"country": code, "scenario_text": ques["scenario"],
                      "scenario_id": [sid_map[int(s)] for s in ques["scenario_id"]], "question": ques["question"],
                      "trait": [TRAIT_NAMES[t] for t in ques["trait"]]}).to_csv(
            out / "questions" / f"all_{code}_questions.csv", index=False)
        ans = pd.DataFrame({"country": code, "question_id": range(len(ques)), "question": ques["question"],
                            "trait": [TRAIT_NAMES[t] for t in ques["trait"]], **{lv: ques[lv] for lv in LEVELS}})
        ans.to_csv(out / "answers" / f"all_{code}_answers.csv", index=False)
        counts[country] = {"norms": len(norms), "scenarios": len(scen), "questions": len(ques)}
    (out / "norms" / "openai_cultural_norms.json").write_text(
        json.dumps({"cultural-norms": blocks}, indent=2, ensure_ascii=False))
    return counts


def release_norms(root, country_name: str) -> list[str]:
    """Norm texts of a country from a release's norms JSON (leading list numbers removed)."""

    p = Path(root) / "datasets" / "cp" / "norms" / "openai_cultural_norms.json"
    data = read_json(p, expect=dict)
    blocks = data.get("cultural-norms")
    if not isinstance(blocks, list):
        raise InputError(p, "expected a list under 'cultural-norms'", field="cultural-norms")
    for i, block in enumerate(blocks):
        if not isinstance(block, dict) or not isinstance(block.get("country"), str) \
                or not isinstance(block.get("norms"), list):
            raise InputError(p, f"block {i + 1}: expected an object with 'country' (text) and 'norms' (list)",
                             field="cultural-norms")
        if block["country"].lower() in (country_name.lower(), country_name.lower().replace("the ", "")):
            bad = [j for j, n in enumerate(block["norms"])
                   if not isinstance(n, dict) or not isinstance(n.get("text"), str)]
            if bad:
                raise InputError(p, f"block {i + 1} ({block['country']}), norm {bad[0] + 1}: "
                                    f"expected an object with a 'text'", field="text")
            return [re.sub(r"^\s*\d+[.)]\s*", "", n["text"]) for n in block["norms"]]
    raise InputError(p, f"no norms for {country_name!r} (countries: {[b['country'] for b in blocks]})",
                     field="country")


def release_questions(root, code: str) -> pd.DataFrame:
    """Questions joined with their answers (by question_id = row order) from the release."""
    cp = Path(root) / "datasets" / "cp"
    q = read_table(cp / "questions" / f"all_{code}_questions.csv", keep_default_na=False,
                   required=["scenario_text", "question", "trait"], nonempty=["question"])
    a_path = cp / "answers" / f"all_{code}_answers.csv"
    a = read_table(a_path, keep_default_na=False, required=["question_id", *LEVELS], integer=["question_id"],
                   nonempty=["question_id"])
    if len(q) != len(a):
        raise InputError(a_path, f"{len(a)} answer rows but {len(q)} questions in all_{code}_questions.csv "
                                 f"(answers pair with questions by row order)")
    out = q.rename(columns={"scenario_text": "scenario"}).copy()
    out["question_id"] = a["question_id"].astype(int)
    for lv in LEVELS:
        out[lv] = a[lv]
    return out
