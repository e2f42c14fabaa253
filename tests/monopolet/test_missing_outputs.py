"""Outputs of the paper that were missing (issue 11, item 9): each from the study's own functions."""

from __future__ import annotations

import numpy as np
import pytest

from cultalign.monopolet import figures
from cultalign.monopolet.metrics import eaa_grid


def test_figure9_grid_is_the_papers_and_uses_the_eaa_definition(tmp_path):
    grid = eaa_grid([2, 6, 10, 20, 40, 100], steps=11)
    assert sorted(grid["r_cand"].unique()) == [2, 6, 10, 20, 40, 100]
    assert len(grid) == 6 * 11 * 11
    g = grid.set_index(["r_cand", "intersection_ratio", "same_stance_ratio"])
    # 10 candidates, half matched (5 pairs), 3 of them with the same stance: EAA 3/5, SAA 3/20
    assert g.loc[(10, 0.5, 0.6), "EAA"] == pytest.approx(0.6)
    assert g.loc[(10, 0.5, 0.6), "SAA"] == pytest.approx(3 / 20)
    # nothing matched: EAA undefined; EAA follows the stance ratio, not the output length
    assert np.isnan(g.loc[(40, 0.0, 0.5), "EAA"])
    assert {round(g.loc[(r, 1.0, 0.8), "EAA"], 6) for r in (10, 20, 40, 100)} == {0.8}
    figures.figure9(grid, str(tmp_path / "f9.png"))
    assert (tmp_path / "f9.png").stat().st_size > 1000
    with pytest.raises(ValueError, match="eaa_grid.steps"):
        eaa_grid([2], steps=1)


def test_figure3_topic_map_places_documents_by_topic(tmp_path):
    import pandas as pd

    from cultalign.monopolet.topics import topic_map

    rng = np.random.default_rng(0)
    w = np.vstack([rng.dirichlet([8, 1, 1], 10), rng.dirichlet([1, 8, 1], 10), rng.dirichlet([1, 1, 8], 10)])
    dt = pd.DataFrame(w, columns=["topic_0", "topic_1", "topic_2"])
    dt.insert(0, "dilemma_id", [f"d{i}" for i in range(30)])
    pos = topic_map(dt, seed=1, perplexity=30)
    assert pos["layout"].iloc[0] == "tsne perplexity 9.66667"  # capped: (30 - 1) / 3
    assert pos["topic"].tolist() == ["0"] * 10 + ["1"] * 10 + ["2"] * 10
    # documents of one topic lie closer to their own topic's centre than to the others'
    centres = pos.groupby("topic")[["x", "y"]].mean()
    d = np.linalg.norm(pos[["x", "y"]].to_numpy()[:, None, :] - centres.to_numpy()[None], axis=2)
    assert (centres.index[d.argmin(axis=1)] == pos["topic"]).mean() >= 0.9
    topics = pd.DataFrame({"topic": [0, 1, 2], "name": ["0_arbejde", "1_cykel", "2_kærlighed"]})
    figures.figure3(pos, topics, str(tmp_path / "f3.png"))
    assert (tmp_path / "f3.png").stat().st_size > 1000
    # two documents (the demo): still a map
    assert len(topic_map(dt.head(2), seed=1, perplexity=30)) == 2
    with pytest.raises(ValueError, match="topic_<k>"):
        topic_map(dt[["dilemma_id"]], seed=1, perplexity=30)


def test_annotation_samples_have_the_papers_layout():
    import json

    import pandas as pd

    from cultalign.monopolet.annotation_samples import dilemma_sample, matching_sample, solution_sample

    ids = [f"x{i}" for i in range(10)]
    dilemmas = pd.DataFrame({"dilemma_id": ids, "dilemma": [f"D {i}" for i in range(10)],
                             "valid": [True] * 9 + [False]})
    sections = pd.DataFrame({"dilemma_id": ids, "episode_id": "e1", "summary": "s", "section": "A: hej"})
    d = dilemma_sample(dilemmas, sections, annotators=2, per_annotator=3, seed=5)
    assert d.groupby("annotator").size().to_dict() == {"A1": 3, "A2": 3}
    assert d["dilemma_id"].is_unique and "x9" not in set(d["dilemma_id"])  # disjoint, valid only
    assert list(d.columns[-4:]) == ["Missing", "Mis-Un", "Hall", "Not-In"] and (d["Hall"] == "").all()
    # more than there is: every valid dilemma once
    assert len(dilemma_sample(dilemmas, sections, annotators=2, per_annotator=150, seed=5)) == 9
    panel = pd.DataFrame({"dilemma_id": ids, "valid": True, "n_raw": 3, "n_solutions": 2,
                          "raw": '{"solutions": []}', "solutions": "[]"})
    s = solution_sample(dilemmas, sections, panel, n=4, seed=5)
    assert len(s) == 4 and {"first_pass_output", "final_solutions"} <= set(s.columns)
    # matching: 3 candidate solutions, one matched; 2 reference solutions
    m = pd.DataFrame({"dilemma_id": "x1", "solution_cand": [0, 0, 1, 1, 2, 2], "solution_ref": [0, 1] * 3,
                      "action_cand": ["a", "a", "b", "b", "c", "c"], "stance_cand": "advised",
                      "action_ref": ["r0", "r1"] * 3, "stance_ref": "advised", "match": [0, 1, 0, 0, 0, 0]})
    out = matching_sample({"m_vs_panel": m}, per_class=1, seed=5)
    assert sorted(out["system_matched"]) == [0, 1] and out["pair_id"].is_unique
    hit = out[out["system_matched"] == 1].iloc[0]
    assert hit["action_cand"] == "a" and json.loads(hit["matched_to"]) == ["r1"]
    assert [r["action"] for r in json.loads(hit["reference_solutions"])] == ["r0", "r1"]


def test_table3_counts_issue_types_of_the_filled_sample(tmp_path):
    import pandas as pd

    from cultalign.core.inputs import InputError
    from cultalign.monopolet.annotation import annotation_table

    f = tmp_path / "dilemmas_filled.tsv"
    pd.DataFrame({"item": ["d0", "d1", "d2", "d3"], "annotator": ["A1", "A1", "A2", "A2"],
                  "Missing": ["1", "", "0", "1"], "Mis-Un": ["", "1", "", ""], "Hall": ["", "", "", "1"],
                  "Not-In": ["", "", "", ""]}).to_csv(f, sep="\t", index=False)
    t = annotation_table(None, None, str(f))
    v = {(q, c): x for q, c, x in zip(t["quantity"], t["class"], t["value"])}
    assert v[("count", "Missing")] == 2 and v[("count", "Mis-Un")] == 1 and v[("count", "Not-In")] == 0
    assert v[("count", "any")] == 3 and v[("share", "any")] == 0.75 and v[("dilemmas", "")] == 4
    f.write_text(f.read_text().replace("d1\tA1\t\t1", "d1\tA1\t\tyes"))
    with pytest.raises(InputError, match="Mis-Un"):
        annotation_table(None, None, str(f))


def test_mapping_sample_a1_shares_items_and_reads_back_as_table2(tmp_path):
    """A.1: summaries with the chosen (M) or rejected proposal (NM) chunk, a shared part for kappa,
    in the layout monopolet.annotations.mapping reads."""
    import pandas as pd

    from cultalign.monopolet.annotation import annotation_table
    from cultalign.monopolet.annotation_samples import mapping_sample

    n = 40
    sections = pd.DataFrame({"dilemma_id": [f"x{i}" for i in range(n)], "episode_id": ["e1", "e2"] * (n // 2),
                             "summary": [f"S {i}" for i in range(n)],
                             "chunk": [i % 7 if i % 4 else -1 for i in range(n)],  # every 4th unmapped
                             "proposed_chunk": [(i + 1) % 7 for i in range(n)]})
    chunks = pd.concat([pd.DataFrame({"episode_id": e, "chunk": range(7), "text": [f"{e} c{k}" for k in range(7)]})
                        for e in ("e1", "e2")], ignore_index=True)
    s, counts = mapping_sample(sections, chunks, annotators=2, per_annotator=12, overlap=4, seed=3)
    assert len(s) == 4 + 2 * 8 and s["dilemma_id"].is_unique and counts["shared"] == 4
    assert s["assigned"].value_counts().to_dict() == {"1": 8, "2": 8, "1,2": 4}
    assert s.loc[s["assigned"] != "1,2", "assigned"].map(s["assigned"].value_counts()).eq(8).all()
    row = sections.set_index("dilemma_id")
    for r in s.itertuples():
        src = row.loc[r.dilemma_id]
        want = (src.chunk, "M") if src.chunk >= 0 else (src.proposed_chunk, "NM")
        assert (r.chunk_shown, r.system) == want and r.chunk_text == f"{src.episode_id} c{want[0]}"
    assert {"M", "NM"} == set(s["system"])
    # more than there is: every dilemma once
    assert len(mapping_sample(sections, chunks, 2, 150, 25, seed=3)[0]) == n
    with pytest.raises(ValueError, match="mapping_overlap"):
        mapping_sample(sections, chunks, 2, per_annotator=3, overlap=4, seed=3)
    # filled by two annotators (both label the shared items), it is Table 2's input
    filled = s.assign(annotator_1=[("M" if "1" in a.split(",") else "") for a in s["assigned"]],
                      annotator_2=[("M" if "2" in a.split(",") else "") for a in s["assigned"]])
    f = tmp_path / "mapping_filled.tsv"
    filled.to_csv(f, sep="\t", index=False)
    t = annotation_table(str(f), None)
    v = {(q, c): x for q, c, x in zip(t["quantity"], t["class"], t["value"])}
    assert v[("n_double_annotated", "")] == 4 and v[("n_items", "")] == 20
