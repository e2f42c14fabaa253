from cultalign.core.job import Job
from cultalign.monopolet.episodes import episode_tables

job = Job(snakemake)
episodes, dilemmas, discarded = episode_tables(job.input.manifest, job.params.audio_dir)
counts = {"episodes_kept": len(episodes), "episodes_discarded_no_dilemmas": len(discarded),
          "dilemma_summaries": len(dilemmas)}
job.write_table(episodes, job.output.episodes, counts=counts)
job.write_table(discarded, job.output.discarded, counts=counts)
job.write_table(dilemmas, job.output.dilemmas, counts=counts)
job.log.info("%s", counts)
