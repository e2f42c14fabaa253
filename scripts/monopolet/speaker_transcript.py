from cultalign.audio.diarize import merge_speakers
from cultalign.core.job import Job
from cultalign.core.tables import read_tsv

job = Job(snakemake)
merged = merge_speakers(read_tsv(job.input.segments), read_tsv(job.input.turns, empty_as_na=True))
job.write_table(merged, job.output[0],
                counts={"segments": len(merged), "unknown_speaker": int((merged["speaker"] == "UNKNOWN").sum())})
