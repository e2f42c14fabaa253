from cultalign.monopolet import figures
from cultalign.monopolet.response_stats import FEATURES
from cultalign.monopolet.shards import read_tsv
from cultalign.monopolet.metrics import weighted_topic_scores
from cultalign.provenance import write_sidecar
from cultalign.smk import setup_logging

log = setup_logging(snakemake)
kind = snakemake.params.kind
note = "(demo inputs)" if snakemake.config["scale"] == "demo" else ""
if kind == "figure5":
    figures.figure5(read_tsv(snakemake.input[0]), snakemake.output[0], note)
elif kind == "figure6":
    figures.figure6(read_tsv(snakemake.input[0]), snakemake.output[0])
elif kind == "figure7":
    figures.figure7(read_tsv(snakemake.input[0]), FEATURES, snakemake.output[0])
elif kind == "figure8":
    scores = weighted_topic_scores(read_tsv(snakemake.input.doc_topics), read_tsv(snakemake.input.per_dilemma))
    scores.to_csv(snakemake.output.table, sep="\t", index=False)
    write_sidecar(snakemake.output.table, config=snakemake.config, counts={"rows": len(scores)})
    figures.figure8(scores, read_tsv(snakemake.input.topics), snakemake.output.figure)
log.info("wrote %s", list(snakemake.output))
