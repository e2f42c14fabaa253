from cultalign.monopolet.dataset import dataset_stats
from cultalign.monopolet.shards import read_tsv
from cultalign.provenance import write_sidecar
from cultalign.smk import setup_logging

log = setup_logging(snakemake)
i = snakemake.input
t = dataset_stats(read_tsv(i.episodes), read_tsv(i.discarded), read_tsv(i.sections), read_tsv(i.dilemmas),
                  read_tsv(i.panel))
t.to_csv(snakemake.output[0], sep="\t", index=False)
write_sidecar(snakemake.output[0], config=snakemake.config, counts=dict(zip(t["quantity"], t["value"])))
log.info("\n%s", t.to_string())
