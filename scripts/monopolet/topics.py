import pandas as pd

from cultalign.monopolet.embeddings import load_embeddings
from cultalign.monopolet.shards import read_tsv
from cultalign.monopolet.topics import fit_topics
from cultalign.provenance import write_sidecar
from cultalign.smk import setup_logging

log = setup_logging(snakemake)
d = read_tsv(snakemake.input.dilemmas)
d = d[d["valid"].astype(bool)].reset_index(drop=True)
enc = load_embeddings(dict(snakemake.params.embeddings))
n = snakemake.params.settings["n_components"]
if isinstance(n, int):
    n = max(1, min(n, len(d) - 1))
settings = snakemake.params.settings
doc_topic, topics = fit_topics(d["dilemma"].tolist(), enc, n, seed=snakemake.config["seed"],
                               min_df=settings.get("min_df", 2), stop_words=settings.get("stop_words", "da"))
dt = pd.DataFrame(doc_topic, columns=[f"topic_{k}" for k in range(doc_topic.shape[1])])
dt.insert(0, "dilemma_id", d["dilemma_id"])
dt.to_csv(snakemake.output.doc_topics, sep="\t", index=False)
topics.to_csv(snakemake.output.topics, sep="\t", index=False)
for out in snakemake.output:
    write_sidecar(out, config=snakemake.config, seed=snakemake.config["seed"],
                  counts={"documents": len(d), "topics": len(topics)},
                  extra={"encoder": getattr(enc, "model_id", "")})
log.info("\n%s", topics.to_string())
