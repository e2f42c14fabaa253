# monopolet: SYNTHETIC demo inputs the workflow writes itself (the audio of the
# demo episodes, spoken from written scripts).  Real recordings need none:
# demo_scripts: null.


if MONOPOLET["demo_scripts"]:

    rule monopolet_demo_audio:
        """SYNTHETIC demo audio: a written Danish episode script spoken with espeak-ng in several voices (sidecars say synthetic)."""
        input:
            script=monopolet_demo_script,
        output:
            wav=f"{MONOPOLET_AUDIO_DIR}/{{episode}}.wav",
            turns=f"{MONOPOLET_AUDIO_DIR}/{{episode}}.turns.tsv",
        log:
            "logs/monopolet/demo_audio/{episode}.log",
        localrule: True
        conda:
            "../../envs/audio.yaml"
        resources:
            mem_mb=attempt_scaled(500),
            runtime=attempt_scaled(5),
        params:
            speed=conf("monopolet.demo_speech_rate"),
        script:
            "../../scripts/monopolet/demo_audio.py"
