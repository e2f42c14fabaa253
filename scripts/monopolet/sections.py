import pandas as pd

from cultalign.monopolet.embeddings import load_embeddings
from cultalign.monopolet.mapping import MappingSettings, cut_sections, map_summaries
from cultalign.monopolet.prompts import template_hashes
from cultalign.monopolet.shards import read_tsv
from cultalign.monopolet.text import find_prize_start, make_chunks, sentence_table
from cultalign.provenance import write_sidecar
from cultalign.smk import client_for, setup_logging

log = setup_logging(snakemake)
p = snakemake.params
episode = snakemake.wildcards.episode
transcript = read_tsv(snakemake.input.transcript)
transcript["text"] = transcript["text"].fillna("")
summaries = read_tsv(snakemake.input.summaries)
summaries = summaries[summaries["episode_id"] == episode]
sentences = sentence_table(transcript)
chunks = make_chunks(sentences, size=p.chunk_sentences, stride=1)
prize = find_prize_start(sentences, list(p.prize["keywords"]), p.prize["tail_fraction"])
client = client_for(snakemake, p.model)
embedder = load_embeddings(dict(p.embeddings))
mapping = map_summaries(summaries, chunks, prize, embedder, client, MappingSettings.from_config(dict(p.mapping)))
sections = cut_sections(mapping, sentences, prize, episode)
sections["valid"] = sections["status"] == "ok"
sections.to_csv(snakemake.output.sections, sep="\t", index=False)
chunks["in_prize_segment"] = chunks["last_sentence"] >= (prize if prize is not None else len(sentences))
chunks.to_csv(snakemake.output.chunks, sep="\t", index=False)
counts = {"sentences": len(sentences), "chunks": len(chunks), "prize_found": int(prize is not None),
          "valid": int(sections["valid"].sum()), "invalid": int((~sections["valid"]).sum())}
counts.update({f"method_{k}": int(v) for k, v in sections["method"].value_counts().items()})
counts.update({f"status_{k}": int(v) for k, v in sections["status"].value_counts().items()})
write_sidecar(snakemake.output.sections, config=snakemake.config, client=client, seed=snakemake.config["seed"],
              prompt_templates=template_hashes("check_intro"), counts=counts,
              extra={"embeddings": getattr(embedder, "model_id", str(p.embeddings))})
write_sidecar(snakemake.output.chunks, config=snakemake.config, counts={"chunks": len(chunks)})
log.info("%s", counts)
