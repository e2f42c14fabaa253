"""Audio stages of the monopolet study: demo speech synthesis (espeak-ng),
whisper model preparation (CTranslate2), transcription (faster-whisper) and
speaker diarization (pyannote.audio pipeline or resemblyzer)."""
