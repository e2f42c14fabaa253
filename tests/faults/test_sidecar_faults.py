"""Fault injection on provenance sidecars: a failing rerun, a sidecar that does not match its table."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest

from cultalign.core.provenance import StaleSidecarError, read_sidecar, sidecar_path
from cultalign.core.tables import write_table

SRC = Path(__file__).resolve().parents[2] / "src"

SNAKEFILE = textwrap.dedent("""
    rule two_tables:
        input: "in.txt"
        output: a="out/a.tsv", b="out/b.tsv"
        log: "logs/two_tables.log"
        script: "two_tables.py"
""")
# writes table a (and its sidecar), then fails before table b when the input says so
SCRIPT = textwrap.dedent("""
    import pandas as pd
    from cultalign.core.job import Job
    job = Job(snakemake)
    text = open(job.input[0]).read()
    job.write_table(pd.DataFrame({"x": [text]}), job.output.a)
    if "fail" in text:
        raise RuntimeError("injected failure after the first table")
    job.write_table(pd.DataFrame({"y": [text]}), job.output.b)
""")


def smk(work):
    env = {"PYTHONPATH": str(SRC), "PATH": str(Path(sys.executable).parent) + ":/usr/bin:/bin", "HOME": str(work)}
    return subprocess.run([sys.executable, "-m", "snakemake", "--cores", "1"], cwd=work, env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_fault_sidecar_failing_rerun_leaves_no_stale_sidecar(tmp_path):
    (tmp_path / "Snakefile").write_text(SNAKEFILE)
    (tmp_path / "two_tables.py").write_text(SCRIPT)
    (tmp_path / "in.txt").write_text("first")
    assert smk(tmp_path).returncode == 0
    a, b = tmp_path / "out" / "a.tsv", tmp_path / "out" / "b.tsv"
    assert read_sidecar(a)["rule"] == "two_tables" and read_sidecar(b)["table_sha256"]
    (tmp_path / "in.txt").write_text("now fail")  # newer input: the rerun fails midway
    out = smk(tmp_path)
    assert out.returncode != 0
    assert "injected failure" in (tmp_path / "logs" / "two_tables.log").read_text()
    # Snakemake removed both tables; no sidecar of either survives (a: written then discarded,
    # b: the earlier run's, removed at the start of the job)
    assert not a.exists() and not b.exists()
    assert not sidecar_path(a).exists() and not sidecar_path(b).exists()
    assert not list((tmp_path / "out").glob("*.tmp"))


def test_fault_sidecar_of_a_rewritten_table_is_detected(tmp_path):
    t = tmp_path / "t.tsv"
    write_table(pd.DataFrame({"score": [2.86]}), t, job={"rule": "r"})
    assert read_sidecar(t)["rule"] == "r"
    t.write_text(t.read_text().replace("2.86", "4.0"))  # the table changed, its sidecar did not
    with pytest.raises(StaleSidecarError, match=r"t\.tsv does not match what rule r wrote") as e:
        read_sidecar(t)
    assert str(t) in str(e.value)
    assert read_sidecar(t, verify=False)["rule"] == "r"  # still readable on purpose


def test_fault_sidecar_from_another_run_beside_a_table(tmp_path):
    old, new = tmp_path / "old.tsv", tmp_path / "new.tsv"
    write_table(pd.DataFrame({"a": [1]}), old, job={"rule": "earlier"})
    write_table(pd.DataFrame({"a": [2]}), new, job={"rule": "later"})
    sidecar_path(old).replace(sidecar_path(new))  # the earlier run's sidecar now sits beside the new table
    with pytest.raises(StaleSidecarError):
        read_sidecar(new)
    old.unlink()
    write_table(pd.DataFrame({"a": [1]}), old, job={"rule": "earlier"})
    old.unlink()  # a sidecar whose table is gone
    with pytest.raises(StaleSidecarError, match="is missing"):
        read_sidecar(old)


def test_fault_sidecar_stale_part_fails_the_gathering_reader(tmp_path):
    from cultalign.monopolet.gathering import summed_counts

    parts = [tmp_path / f"part{i}.tsv" for i in range(2)]
    for i, p in enumerate(parts):
        write_table(pd.DataFrame({"a": [i]}), p, job={"rule": "r"}, counts={"rows": 1})
    assert summed_counts(parts) == {"rows": 2}
    parts[1].write_text("a\n7\n8\n")
    with pytest.raises(StaleSidecarError, match="part1.tsv"):
        summed_counts(parts)


def test_fault_sidecar_without_hash_fails_the_reader(tmp_path):
    import json

    t = tmp_path / "t.tsv"
    write_table(pd.DataFrame({"a": [1]}), t, job={"rule": "r"})
    rec = json.loads(sidecar_path(t).read_text())
    del rec["table_sha256"]
    sidecar_path(t).write_text(json.dumps(rec))
    t.write_text("a\n2\n")
    with pytest.raises(StaleSidecarError, match="table_sha256"):
        read_sidecar(t)
    assert read_sidecar(t, verify=False)["rule"] == "r"


def test_sidecar_of_a_folder_ignores_the_marker_snakemake_adds_and_sees_real_changes(tmp_path):
    """A directory output (a FAISS index folder) gets `.snakemake_timestamp` from Snakemake after
    its job wrote the sidecar; that marker is not content.  Seen in the rehearsal: every reader of
    the personas index failed with StaleSidecarError before the marker was left out."""
    from cultalign.core.provenance import write_sidecar

    folder = tmp_path / "index"
    folder.mkdir()
    (folder / "index.faiss").write_bytes(b"vectors")
    write_sidecar(folder, job={"rule": "personas_index"})
    (folder / ".snakemake_timestamp").write_bytes(b"")
    assert read_sidecar(folder)["rule"] == "personas_index"
    (folder / "index.faiss").write_bytes(b"other vectors")
    with pytest.raises(StaleSidecarError):
        read_sidecar(folder)


@pytest.mark.parametrize("kind", ["pdf", "wav"])
def test_fault_damaged_demo_input_is_called_damaged_with_how_to_rebuild_it(tmp_path, kind):
    """A truncated demo PDF or WAV (outputs of the demo rules, with sidecars) met by the job that reads
    it (Job reads its inputs' sidecars for the synthetic mark): the message says the file does not match
    what its rule wrote and may be damaged, and gives the command that rebuilds that file (a plain
    rerun would not: Snakemake sees the file as up to date)."""
    from cultalign.core.provenance import synthetic_inputs_of_files, write_sidecar

    if kind == "pdf":
        from cultalign.personas.corpus import demo_pdf

        src = next((SRC.parent / "resources" / "demo" / "personas" / "corpus").glob("*.txt"))
        f, rule = tmp_path / "japan_demo.pdf", "personas_demo_pdf"
        demo_pdf(src, f, "japan")
    else:
        import numpy as np
        import soundfile as sf

        f, rule = tmp_path / "demo_ep01.wav", "monopolet_demo_audio"
        sf.write(f, np.zeros(16000, dtype="float32"), 16000)
    write_sidecar(f, job={"rule": rule, "synthetic_inputs": ["personas.corpus"]}, extra={"synthetic": True})
    assert synthetic_inputs_of_files([f]) == ["personas.corpus"]
    f.write_bytes(f.read_bytes()[: len(f.read_bytes()) // 2])  # a truncated copy
    with pytest.raises(StaleSidecarError) as e:
        synthetic_inputs_of_files([f])
    msg = str(e.value)
    assert msg.startswith(f"{f} does not match what rule {rule} wrote") and "may be damaged" in msg, msg
    assert f"snakemake --cores 1 --force {f}" in msg and "rerun the rule" not in msg, msg
