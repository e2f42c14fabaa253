# monopolet study (issue 5): "Naturalistic measure of social norms alignment"
# (Sara og Monopolet).  Episodes (audio + manifest) -> transcripts with
# speakers -> dilemma sections -> full dilemmas -> panel and model solutions
# -> LLM-judge matching -> SAA/EAA, response statistics, topics, annotation
# agreement -> Figures 5-8, Table 1 and claims.  Stages after the sections are
# sharded ({shard}); rules/monopolet_report.smk holds tables and figures.
from cultalign.monopolet.episodes import load_manifest as mono_load_manifest

MONO = config["monopolet"]
MONO_ON = "monopolet" in STUDIES
MONO_EP_TABLE = mono_load_manifest(MONO["manifest"])[0] if MONO_ON else None
MONO_EPISODES = MONO_EP_TABLE["episode_id"].tolist() if MONO_ON else []
MONO_ANSWER_MODELS = MONO["answer_models"]
MONO_AGENTS = ["panel"] + MONO_ANSWER_MODELS
MONO_COMPARISONS = MONO["comparisons"] or [f"{m}_vs_panel" for m in MONO_ANSWER_MODELS]
MONO_STAGES = ["dilemmas", "answers", "solutions", "matching"]
MONO_WHISPER = MONO["whisper"]
MONO_AUDIO_DIR = str(Path(MONO["audio_dir"]))
MONO_WHISPER_DIR = (
    MONO_WHISPER["path"]
    if MONO_WHISPER["source"] == "local"
    else f"resources/models/whisper/{MONO_WHISPER['name']}"
)


def mono_check_models():
    """Every model a monopolet role names must be declared under `models:`."""
    roles = {
        "monopolet.mapping.model": [MONO["mapping"]["model"]],
        "monopolet.extraction.model": [MONO["extraction"]["model"]],
        "monopolet.judge.model": [MONO["judge"]["model"]],
        "monopolet.answer_models": MONO_ANSWER_MODELS,
    }
    bad = [f"{k}: {m!r}" for k, ms in roles.items() for m in ms if m not in MODELS]
    if bad:
        raise ValueError(
            "monopolet model(s) not declared under 'models:': " + "; ".join(bad)
        )
    for c in MONO_COMPARISONS:
        cand, ref = c.split("_vs_")
        for a in (cand, ref):
            if a not in MONO_AGENTS:
                raise ValueError(
                    f"monopolet.comparisons: {c!r} names agent {a!r}; agents: {MONO_AGENTS}"
                )


if MONO_ON:
    mono_check_models()


def mono_audio(wildcards):
    row = MONO_EP_TABLE.set_index("episode_id").loc[wildcards.episode]
    return f"{MONO['audio_dir']}/{row['audio']}"


def mono_all_audio(wildcards):
    return [f"{MONO['audio_dir']}/{a}" for a in MONO_EP_TABLE["audio"]]


def mono_num_speakers(wildcards):
    if not MONO["diarization"]["speakers_from_manifest"]:
        return None
    row = MONO_EP_TABLE.set_index("episode_id").loc[wildcards.episode]
    return int(row["n_guests"]) + 1


def mono_demo_script(wildcards):
    return f"{MONO['demo_scripts']}/{wildcards.episode}.txt"


def mono_whisper_packages(wildcards):
    return MONO_WHISPER["packages"]


def mono_mapping_weights(wildcards):
    return model_dir(MONO["mapping"]["model"])


def mono_extraction_weights(wildcards):
    return model_dir(MONO["extraction"]["model"])


def mono_judge_weights(wildcards):
    return model_dir(MONO["judge"]["model"])


def mono_episode_files(pattern):
    return [pattern.format(episode=e) for e in MONO_EPISODES]


def mono_segments(wildcards):
    return mono_episode_files("results/monopolet/transcripts/{episode}.segments.tsv")


def mono_section_files(wildcards):
    return mono_episode_files("results/monopolet/sections/{episode}.tsv")


def mono_gather_inputs(wildcards):
    n = MONO["shards"]
    return [
        f"results/monopolet/{wildcards.stage}/shards/{wildcards.name}/{s}.tsv"
        for s in shard_ids(n)
    ]


def mono_agent_responses(wildcards):
    """Panel solutions come from the transcript sections, a model's from its answers."""
    if wildcards.agent == "panel":
        return "results/monopolet/sections/sections.tsv"
    return f"results/monopolet/answers/{wildcards.agent}.tsv"


def mono_comparison_solutions(wildcards):
    cand, ref = wildcards.comparison.split("_vs_")
    return {
        "cand": f"results/monopolet/solutions/{cand}.tsv",
        "ref": f"results/monopolet/solutions/{ref}.tsv",
    }


def mono_matchings(wildcards):
    return [f"results/monopolet/matching/{c}.tsv" for c in MONO_COMPARISONS]


def mono_answer_tables(wildcards):
    return [f"results/monopolet/answers/{m}.tsv" for m in MONO_ANSWER_MODELS]


def mono_demo_turns(wildcards):
    if not MONO["demo_scripts"]:
        return []
    return mono_episode_files(f"{MONO_AUDIO_DIR}/{{episode}}.turns.tsv")


def mono_turns(wildcards):
    return mono_episode_files("results/monopolet/diarization/{episode}.turns.tsv")


def mono_annotation(kind):
    path = MONO["annotations"][kind]
    return [path] if path else []


def mono_annotation_inputs(wildcards):
    return mono_annotation("mapping") + mono_annotation("matching")


wildcard_constraints:
    episode=regex_of(MONO_EPISODES),
    agent=regex_of(MONO_AGENTS),
    comparison=regex_of(MONO_COMPARISONS),
    stage=regex_of(MONO_STAGES),
    whisper=regex_of([MONO_WHISPER["name"]]),
