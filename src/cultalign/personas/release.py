"""Generated tables -> the published release layout; reading the release's questions and norms."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pandas as pd

from ..core.inputs import InputError, read_json, read_table, row_error
from .common import LEVELS, TRAIT_NAMES


# the release's files, relative to its root (the published repository's layout)
RELEASE_CP_FILES = ("datasets/cp/questions/all_{code}_questions.csv", "datasets/cp/answers/all_{code}_answers.csv",
                    "datasets/cp/scenarios/all_{code}_scenarios.csv")
RELEASE_NORMS_FILE = "datasets/cp/norms/openai_cultural_norms.json"
RELEASE_BASELINES = ("datasets/baselines/bfi.csv", "datasets/baselines/ipip-120.csv",
                     "datasets/baselines/ipip-300.csv")


def release_files(codes, norms: bool = False, baselines=()) -> list[str]:
    """The release files (relative to its root) a job reads: questions, answers and scenarios of each
    country file code in ``codes``, the norms JSON (``norms``) and the ``baselines`` files."""
    out = [f.format(code=c) for c in codes for f in RELEASE_CP_FILES]
    return out + ([RELEASE_NORMS_FILE] if norms else []) + [b for b in baselines if b not in out]


def release_root(inp) -> Path:
    """The release folder behind a rule input: the folder itself, or a list of the release's files
    (``<root>/datasets/...`` each: the downloaded release, whose files the workflow tracks one by one)."""
    if isinstance(inp, (str, Path)):
        return Path(inp)
    roots = {str(p).replace("\\", "/").rsplit("/datasets/", 1)[0] for p in inp if "/datasets/" in str(p)}
    if len(roots) != 1 or not all("/datasets/" in str(p) for p in inp):
        raise ValueError(f"the release's files must lie under one folder <root>/datasets/, got {list(inp)[:3]}")
    return Path(roots.pop())


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


_SERIALIZED = re.compile(r"^\s*\[?\s*[A-Z][A-Za-z_]*\(\s*[a-z_]+\s*=")


def is_serialized(text) -> bool:
    """Whether a cell holds a serialized Python object (``[Question(trait=..., question=...)]``) rather
    than text."""
    return bool(_SERIALIZED.match(str(text)))


def serialized_field(text: str, field: str) -> str:
    """The text of keyword ``field`` of a serialized object such as ``[Question(trait='...', question='...')]``,
    read with the Python parser (literals only; nothing is evaluated).  ValueError when it is not one
    such object with a text ``field``."""
    try:
        tree = ast.parse(str(text).strip(), mode="eval").body
    except SyntaxError as e:
        raise ValueError(f"not a serialized object: {e.msg}") from None
    if isinstance(tree, (ast.List, ast.Tuple)):
        if len(tree.elts) != 1:
            raise ValueError(f"a list of {len(tree.elts)} objects, expected one")
        tree = tree.elts[0]
    if not isinstance(tree, ast.Call):
        raise ValueError("not a serialized object")
    for kw in tree.keywords:
        if kw.arg == field:
            value = ast.literal_eval(kw.value)
            if not isinstance(value, str) or not value.strip():
                raise ValueError(f"its {field!r} is not text")
            return value
    raise ValueError(f"the object has no {field!r}")


def clean_norm(text: str) -> str:
    """A released norm as a statement: whitespace collapsed, the list number ("3. "), markdown bold and
    quotes around the whole norm removed ("**Family Ties**: Family is ..." -> "Family Ties: Family is ...")."""
    t = " ".join(str(text).split())
    t = re.sub(r"^\d+[.)]\s*", "", t).replace("**", "")
    m = re.fullmatch(r'["\u201c](.*)["\u201d]([.]?)', t)
    if m and '"' not in m.group(1):
        t = m.group(1) + m.group(2)
    return t.strip()


def scenario_norms(root, code: str) -> list[str]:
    """The norms a country's released scenarios were built from (``norm_text`` of
    ``scenarios/all_<code>_scenarios.csv``, one per ``norm_id``, in id order, cleaned with
    :func:`clean_norm`).  The release's norms JSON is not used: for five of its six countries it holds
    other norms than the ones its scenarios were generated from (see the audit)."""
    folder = Path(root) / "datasets" / "cp" / "scenarios"
    p = folder / f"all_{code}_scenarios.csv"
    if not p.is_file():  # a country id for its file code ("usa" for all_USA_...): one case-insensitive match
        near = [q for q in folder.glob("all_*_scenarios.csv") if q.name.lower() == p.name.lower()]
        if len(near) != 1:
            raise InputError(p, f"no scenarios file for country code {code!r} (config key "
                                f"personas.countries.<id>.release_code)")
        p = near[0]
    sc = read_table(p, keep_default_na=False, required=["norm_id", "norm_text"], integer=["norm_id"],
                    nonempty=["norm_id", "norm_text"])
    out: list[str] = []
    for nid, g in sc.groupby(sc["norm_id"].astype(int), sort=True):
        texts = list(dict.fromkeys(clean_norm(t) for t in g["norm_text"]))
        if len(texts) != 1:
            first = int(g.index[[clean_norm(t) != texts[0] for t in g["norm_text"]]][0])
            raise row_error(sc, first, "norm_text", f"norm_id {nid} has {len(texts)} different norm texts")
        out.append(texts[0])
    return out


def release_norms(root, country_name: str) -> list[str]:
    """Norm texts of a country from a release's norms JSON (leading list numbers removed).  Persona
    priming does not use them (:func:`scenario_norms`): for five of the six published countries the JSON
    holds other norms than the ones the scenarios were built from."""

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
    """Questions joined with their answers (by question_id = row order) from the release.  A question
    cell that holds a serialized object (``[Question(trait=..., question='...')]``, 63 rows of the
    published release) is replaced by the object's question text; ``question_parsed`` marks those
    rows.  The parsed text must equal the answers file's question and the object's trait the row's."""
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
    parsed = [is_serialized(t) for t in out["question"]]
    for i in [k for k, b in enumerate(parsed) if b]:
        raw = out.at[i, "question"]
        try:
            text, trait = serialized_field(raw, "question"), serialized_field(raw, "trait")
        except ValueError as e:
            raise row_error(q, i, "question", f"a serialized object instead of a question, and unreadable: {e}") \
                from None
        if trait.strip() != str(out.at[i, "trait"]).strip():
            raise row_error(q, i, "trait", f"the serialized question says trait {trait!r}, the row "
                                           f"{out.at[i, 'trait']!r}")
        if "question" in a.columns and " ".join(str(a.at[i, "question"]).split()) != " ".join(text.split()):
            raise row_error(a, i, "question", "differs from the text of the serialized question in the same "
                                              f"row of all_{code}_questions.csv")
        out.at[i, "question"] = text
    out["question_parsed"] = parsed
    out["question_id"] = a["question_id"].astype(int)
    for lv in LEVELS:
        out[lv] = a[lv]
    return out
