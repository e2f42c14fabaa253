# Config loading and validation, wildcard constraints, params and input
# functions shared by every study.  No rules here.
#
# Params: every config value a rule's script uses reaches it as a named param,
# narrow and order-stable:
#   params: bootstrap=conf("pact.behaviour.bootstrap"), llm=llm_of_wildcard
# so Snakemake's params trigger reruns exactly the jobs a config change
# affects.  Every script rule also gets the param `code` (a hash of the package
# modules its script imports) (add_code_params, called at the end of the
# Snakefile), so an edit of src/cultalign reruns the rules that use it.
import os
import re
import sys
from pathlib import Path

SRC = str(Path(workflow.basedir) / "src")
if SRC not in sys.path:
    sys.path.insert(0, SRC)
# Rule scripts (and jobs on cluster nodes, which re-parse this file) import the
# package from the checkout, also inside per-rule conda envs.  The workflow
# sets this variable; it never requires it from the user.
os.environ.update(
    PYTHONPATH=os.pathsep.join(p for p in (SRC, os.environ.get("PYTHONPATH", "")) if p)
)
from cultalign.core.environment import quiet_openmp

# OpenMP threads sleep while waiting (before any job imports torch; docstring of the module)
quiet_openmp()

from cultalign.core.codehash import code_hash
from cultalign.core.inputs import input_key_map, keys_of_files
from cultalign.core.inputs import register_keys as register_input_keys
from cultalign.core.provenance import canonical
from cultalign.core.runlock import hold_run_lock, holder_of
from cultalign.core.shards import shard_ids
from cultalign.inputs import (
    check_synthetic_marks,
    external_inputs,
    synthetic_keys_of,
    synthetic_paths,
)
from cultalign.config import (
    check_input_files,
    check_model_refs,
    coerce_cli_config,
    load_schema,
    model_gpus,
    model_mem_mb,
    validate_config,
)
from cultalign.models.client import llm_param
from cultalign.models.types import model_specs
from cultalign.models.families import check_model_families
from cultalign.my_model import apply_my_model, card_skips
from cultalign.scoring_check import check_scoring
from cultalign.studies import check_studies

# One run at a time executes jobs in this directory (Snakemake 9.27.1 drops every run's locks
# when any run ends, and its own refusal advises --unlock, harmful during a live run).  Taken
# here, while the Snakefile is parsed and before Snakemake locks, by every command of the main
# process but a dry run (--unlock included); a second one stops here, naming the first.  Jobs
# Snakemake spawns (cluster nodes, local subprocesses) parse in another mode and take none.
if workflow.is_main_process and not workflow.output_settings.dryrun:
    hold_run_lock()
elif workflow.is_main_process and (_running := holder_of()):
    print(
        f"NOTE: a run is executing jobs in this directory ({_running}): this dry run "
        "plans from the outputs as they are now",
        file=sys.stderr,
    )

SCHEMA = load_schema(Path(workflow.basedir) / "config" / "schema")
# nested --config values arrive as strings: typed per schema first
coerce_cli_config(config, workflow.config_settings.config, SCHEMA)
# Fails before any job runs, naming each bad key and what was expected.
validate_config(config, SCHEMA)
# every study under `studies` is registered (src/cultalign/studies.py), else fails naming it
check_studies(config)
# your own model (my_model, config/my-model.yaml) joins each study's model list before the checks
MY_MODEL = apply_my_model(config, base=workflow.basedir)
check_input_files(config, SCHEMA, base=workflow.basedir)
check_model_refs(config, SCHEMA)
# a model of a provider family (GPT-5, gpt-oss...) that names none, or without a reasoning reserve, fails here
check_model_families(config)
# every model's ModelSpec (backend, family, resolved scoring strategy), made once: the checks and
# the model params use these
MODEL_SPECS = model_specs(config)
# a rule that scores options with a model that cannot do what it asks fails here
check_scoring(config, MODEL_SPECS)
# Every external input with its config key and `synthetic` mark (rule preflight lists them);
# an input that is not provided and not marked synthetic fails here, naming its key.
EXTERNAL_INPUTS = external_inputs(config, SCHEMA, base=workflow.basedir)
check_synthetic_marks(config, SCHEMA, inputs=EXTERNAL_INPUTS)
SYNTHETIC_PATHS = synthetic_paths(EXTERNAL_INPUTS)

MODELS = config["models"]
STUDIES = config["studies"]


# the run lock again (a no-op where the parse took it), for callers of Snakemake's API that
# execute jobs without saying so in the output settings
onstart:
    hold_run_lock()


wildcard_constraints:
    model="|".join(re.escape(m) for m in MODELS) or "NO_MODEL",
    shard=r"\d+",


def models_with_source(source):
    return [name for name, m in MODELS.items() if m.get("source") == source]


def model_dir(name):
    """Local weights folder of a model ([] for API models: nothing to build)."""
    m = MODELS[name]
    if m.get("source") == "api" or not m.get("path"):
        return []
    return m["path"]


def model_weights(wildcards):
    """Input function: the weights folder of the rule's {model} wildcard."""
    return model_dir(wildcards.model)


def default_model():
    """The model of the smoke target: config `default_model`, a name, never the first under
    `models` (whose order changes with the config files merged)."""
    return config["default_model"]


def default_model_weights(wildcards):
    return model_dir(default_model())


def planning_tokenizer(wildcards):
    """Input function: the weights folder of planning.tokenizer_model (its tokenizer counts tokens)."""
    return model_dir(config["planning"]["tokenizer_model"])


def conf(key):
    """Param function: the config value at dotted `key` (mappings with sorted keys).

    A function, not the value, so Snakemake neither formats braces in config
    strings as wildcards nor stores anything but the value; a missing key fails
    at parse time naming it.
    """
    value = config
    for part in key.split("."):
        if not isinstance(value, dict) or part not in value:
            raise KeyError(f"config key '{key}' does not exist (no '{part}')")
        value = value[part]
    value = canonical(value)

    def param(wildcards):
        return value

    param.__name__ = f"conf_{key.replace('.', '_')}"
    return param


def llm_of(name):
    """Param function, model `name` (a config role), giving the model's own `models`
    entry, request-cache settings and output checks (cultalign.models.open_client)."""
    # the display name only labels figures: changing it reruns no model job
    value = canonical(llm_param(config, MODEL_SPECS[name]))

    def param(wildcards):
        return value

    return param


def llm_of_wildcard(wildcards):
    """Param function for a rule with a {model} wildcard."""
    return llm_of(wildcards.model)(wildcards)


# input files and folders by the config key that sets them: x-input-file (checked at parse time)
# and x-input-key (files a rule may make first, e.g. the demo audio; the user's corpus folders)
INPUT_KEY_OF = input_key_map(SCHEMA, config)
# files read while the Snakefile is parsed (the episode manifest) name their key when damaged
register_input_keys(INPUT_KEY_OF)


def input_keys(wildcards, input):
    """Param (every script rule): the config key of each input file that a key sets, itself or
    as a folder above it; a loader's error names it (cultalign.core.inputs)."""
    return keys_of_files(input, INPUT_KEY_OF)


def add_code_params():
    """Give each script rule the param `code`, the hash of the package code that
    its script imports (cultalign.core.codehash).  Called once, after every include.

    Rules with protected outputs (downloads, model weights) are left out: a code
    edit must not silently refetch or rebuild them; delete the output to do so.
    """
    from snakemake.io import is_flagged

    for r in workflow.rules:
        if any(is_flagged(o, "protected") for o in r.output):
            continue
        if r.script is not None:
            script = r.basedir.join(r.script).get_path_or_uri(secret_free=True)
            r.set_params(code=code_hash(script), input_keys=input_keys)


def synthetic_inputs_of(wildcards, input):
    """Param function: config keys of the synthetic external inputs this job reads directly
    (cultalign.inputs); Job adds those its input tables' sidecars carry."""
    return synthetic_keys_of(input, SYNTHETIC_PATHS)


def synthetic_label(wildcards, input, output):
    """Report label of a result: the synthetic inputs it was computed from (read at report
    time from the provenance sidecars of its outputs and inputs)."""
    from cultalign.core.provenance import synthetic_inputs_of_files

    keys = synthetic_inputs_of_files([*output, *input])
    # one key in the list of results (a long label squeezes the view of the entry beside it);
    # the entry's table page or figure names them all
    more = f" +{len(keys) - 1}" if len(keys) > 1 else ""
    return {"inputs": f"SYNTHETIC: {keys[0]}{more}" if keys else "real"}


# Report sections (subcategories; the report sorts them by name) and the entry of a result.
REPORT_MAIN = "1. Main text"
REPORT_APPENDIX = "2. Appendix"
REPORT_CHECKS = "3. Data and checks"


def paper_report(path, caption, category, section, no, paper, shows):
    """report() of a result, listed in the report by its labels: `no.` (its place in the paper
    within `section`, so Figure 3 comes before Figure 15), `paper` (the table or figure it
    reproduces), `result` (what it shows; may name wildcards) and `inputs` (real or SYNTHETIC).
    A table goes in as its HTML page (`<table>.html`, written by Job.write_table), so the
    report shows it in the page."""

    def labels(wildcards, input, output):
        lab = {
            "no.": f"{no:02d}",
            "paper": paper,
            "result": shows.format(**dict(wildcards.items())),
        }
        lab.update(synthetic_label(wildcards, input, output))
        return lab

    return report(
        path, caption=caption, category=category, subcategory=section, labels=labels
    )


def add_synthetic_marks():
    """Give each script rule the param `synthetic_inputs` (synthetic_inputs_of) and each report
    output without labels the label `inputs` (synthetic_label).  Called once, after every include.
    Rules with protected outputs (downloads, weights) are left out, as in add_code_params.
    """
    from snakemake.io import is_flagged

    for r in workflow.rules:
        protected = any(is_flagged(o, "protected") for o in r.output)
        if r.script is not None and not protected:
            r.set_params(synthetic_inputs=synthetic_inputs_of)
        for f in r.output:
            rep = f.flags.get("report") if hasattr(f, "flags") else None
            if rep is not None and rep.labels is None:
                f.flags["report"] = rep._replace(labels=synthetic_label)


def config_input(key):
    """Input function: the file or folder at config `key` ([] when null).  A path that does not
    exist and that no rule makes fails while the DAG is built, naming the key and the path
    (only for the targets that need it)."""
    from snakemake.exceptions import WorkflowError

    path = config
    for part in key.split("."):
        path = path[part]

    def inp(wildcards):
        if not path:
            return []
        made = {i.path for i in EXTERNAL_INPUTS if i.made_by}
        if path not in made and not (Path(workflow.basedir) / path).exists():
            raise WorkflowError(
                f"config key '{key}': {path} does not exist and no rule makes it "
                "(set the key to the input; `snakemake preflight` lists every input)"
            )
        return path

    inp.__name__ = f"input_{key.replace('.', '_')}"
    return inp


def input_folder_files(key, folder, pattern):
    """The files matching `pattern` in the user's `folder` (config `key`); a missing or empty
    folder fails while the DAG is built, naming the key and the folder."""
    from snakemake.exceptions import WorkflowError

    p = Path(workflow.basedir) / folder
    if not p.is_dir():
        raise WorkflowError(
            f"config key '{key}': folder {folder} does not exist (`snakemake preflight` lists every input)"
        )
    files = sorted(str(Path(folder) / f.name) for f in p.glob(pattern))
    if not files:
        raise WorkflowError(
            f"config key '{key}': folder {folder} has no {pattern} files"
        )
    return files


def study_targets(study):
    return STUDY_TARGETS.get(study, [])


# Each study's .smk registers its final targets here (used by rule all).
STUDY_TARGETS = {}


def all_targets(wildcards):
    targets = ["results/smoke/generate_smoke.tsv", "results/claims.csv"]
    # model-output counts (rules/report.smk)
    targets.append("results/model_outputs.tsv")
    # where a paper's text and its authors' released code disagree (rules/report.smk)
    targets.append("results/text_vs_code.tsv")
    for study in STUDIES:
        targets += study_targets(study)
    # the card of your own model (my_model.name; the default model unless set): rules/model_card
    targets.append(MY_MODEL_CARD)
    return targets


def study_results(wildcards):
    """Input function of model_outputs (rules/report.smk), the page of model-output counts.
    Every study's final tables (not its figures), so that the model tables behind them are made
    first and a figure that is drawn anew does not rerun the page."""
    return ["results/smoke/generate_smoke.tsv"] + [
        t
        for study in STUDIES
        for t in study_targets(study)
        if not t.endswith((".png", ".pdf", ".svg"))
    ]


def model_display_names(names):
    """Param of a figure rule: {model name: its name in figures} of the models `names` that the
    figure shows, and of no other (models.<name>.display_name, else the last part of its hub_id,
    else the name itself), so that a model added to one study reruns no other study's figures.
    """

    def display(n):
        return (
            MODELS[n].get("display_name")
            or (MODELS[n].get("hub_id") or n).rsplit("/", 1)[-1]
        )

    return {n: display(n) for n in sorted(set(names))}


def model_package(wildcards):
    return MODELS[wildcards.model]["package"]


def hub_folders():
    """{folder name under resources/models: {hub_id, revision}} that rule download_model_hub
    makes: `models` with source hub, and the folders each registered study's `hub_folders`
    hook names (cultalign.studies; e.g. monopolet's sentence encoders)."""
    from cultalign.studies import all_studies

    out = {n: m for n, m in MODELS.items() if m.get("source") == "hub"}
    for study in all_studies().values():
        out.update(study.hub_folders(config))
    return {
        n: {"hub_id": m["hub_id"], "revision": m.get("revision")}
        for n, m in out.items()
    }


def model_hub_id(wildcards):
    return hub_folders()[wildcards.model]["hub_id"]


def model_revision(wildcards):
    return hub_folders()[wildcards.model]["revision"]


def config_at(key):
    value = config
    for part in key.split("."):
        value = (value or {}).get(part)
    return value


def real_data_input(key):
    """Input function: the file or folder a real-data config key names; unset fails naming the key."""

    def fn(wildcards):
        from snakemake.exceptions import WorkflowError

        value = config_at(key)
        if not value:
            raise WorkflowError(
                f"config key '{key}' is not set: the real-data claims need it "
                "(config/real-data.yaml sets it to ../shared/data/...)"
            )
        return value

    fn.__name__ = f"real_data_{key.replace('.', '_')}"
    return fn


def study_sections():
    """Params {study: conf(study)} of each registered study (cultalign.studies), in registry
    order, for the planning jobs, which read every study's config section."""
    from cultalign.studies import registered

    return {study: conf(study) for study in registered()}


def regex_of(names):
    """Wildcard constraint matching exactly these names."""
    return "|".join(re.escape(n) for n in names) or "NO_MATCH"


def claims_inputs(wildcards):
    """Result files that the configured studies produce and claims read."""
    from cultalign.claims import claim_result_files, load_claims

    return claim_result_files(
        load_claims(config["claims"]), STUDIES, claim_needs_set(wildcards)
    )


def _text_vs_code_loaded():
    from cultalign import text_vs_code as tvc

    return tvc.load_studies(STUDIES, workflow.basedir)


def text_vs_code_entries(wildcards):
    """The text_vs_code inputs (report.smk), part one: config/text_vs_code/<study>.yaml of each
    configured study that has one."""
    from cultalign import text_vs_code as tvc

    return [str(tvc.study_file(s)) for s in _text_vs_code_loaded()]


def text_vs_code_results(wildcards):
    """The text_vs_code inputs (report.smk), part two. The result tables its entries' values read."""
    from cultalign import text_vs_code as tvc

    return tvc.result_files(_text_vs_code_loaded())


def env_of_model(name):
    """Conda env of the rules that run model `name`: the vLLM env for vLLM models, else the transformers/openai env.

    For rules without a {model} wildcard whose model is set by a config role
    (construction model, judge, extractor): `conda: env_of_model(<role model>)`.
    """
    env = "vllm.yaml" if MODELS[name]["backend"] == "vllm" else "llm.yaml"
    # absolute: rule files sit at different depths (rules/, rules/<study>/)
    return str(Path(workflow.basedir) / "envs" / env)


def model_env(wildcards):
    """Conda env of a model rule with a {model} wildcard (else the default model's)."""
    return env_of_model(getattr(wildcards, "model", None) or default_model())


def gpu_of_model(name):
    """GPUs of a job that runs model `name`: 0 for API models, the tensor parallel size for vLLM.

    For rules whose model is a config role: `gpu=gpu_of_model(<role model>)`
    (logic: cultalign.config.model_gpus).
    """
    return model_gpus(MODELS[name], config["resources"]["gpu"])


def mem_of_model(name):
    """Resource function: host memory (MB) of a job that runs model `name`, resources.mem_mb
    per GPU it uses, times the attempt (a job killed for memory is retried with more).
    """
    base = model_mem_mb(MODELS[name], config["resources"])

    def mem(wildcards, attempt):
        return base * attempt

    return mem


def model_gpu(wildcards):
    """Resource function: GPUs of a model rule with a {model} wildcard (else the default model's)."""
    return gpu_of_model(getattr(wildcards, "model", None) or default_model())


def model_mem(wildcards, attempt):
    """Resource function: memory (MB) of a model rule with a {model} wildcard, times the attempt."""
    return mem_of_model(getattr(wildcards, "model", None) or default_model())(
        wildcards, attempt
    )


def model_runtime(wildcards, attempt):
    """Resource function: wall time (minutes) of a model job, resources.runtime times the attempt."""
    return config["resources"]["runtime"] * attempt


def attempt_scaled(amount):
    """Resource function: `amount` (MB or minutes) times the attempt, so a job that hit its
    memory or time limit is retried with more (the SLURM profile sets `retries`)."""

    def scaled(wildcards, attempt):
        return amount * attempt

    return scaled


def download_entry(wildcards):
    """Param function of download_file: the `downloads` entry of {path} (url, revision, sha256).
    An entry without a url fails while the DAG is built, for the targets that need it.
    """
    from snakemake.exceptions import WorkflowError

    entry = config["downloads"][wildcards.path]
    if not entry.get("url"):
        keys = [
            i.key
            for i in EXTERNAL_INPUTS
            if i.path == f"resources/downloads/{wildcards.path}"
        ]
        raise WorkflowError(
            f"config key 'downloads.{wildcards.path}' has no url: set url and sha256, or point "
            f"{' / '.join(keys) or 'the input key'} at a local copy"
        )
    return canonical(entry)
