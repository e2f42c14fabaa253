from pathlib import Path

import pandas as pd

from cultalign.monopolet.metrics import agreement_per_dilemma, summarise
from cultalign.monopolet.shards import read_tsv
from cultalign.monopolet.solutions_io import counts
from cultalign.provenance import write_sidecar
from cultalign.smk import setup_logging

log = setup_logging(snakemake)
sol = {Path(p).stem: read_tsv(p) for p in snakemake.input.solutions}
per, summ = [], []
for path in snakemake.input.matchings:
    comp = Path(path).stem
    cand, ref = comp.split("_vs_")
    pairs = read_tsv(path)
    d = agreement_per_dilemma(pairs, counts(sol[cand]), counts(sol[ref]))
    d.insert(0, "comparison", comp)
    per.append(d)
    judged = pairs["judged"].astype(bool) if len(pairs) else pd.Series(dtype=bool)
    s = summarise(d)
    s.update({"comparison": comp, "candidate": cand, "reference": ref, "pairs": len(pairs),
              "judged_pairs": int(judged.sum()),
              "identical_pairs": int((pairs["decision"] == "identical").sum()) if len(pairs) else 0,
              "valid": int((pairs["valid"].astype(bool) & judged).sum()) if len(pairs) else 0,
              "invalid": int((~pairs["valid"].astype(bool)).sum()) if len(pairs) else 0,
              "cand_extraction_invalid": int((~sol[cand]["valid"].astype(bool)).sum()),
              "ref_extraction_invalid": int((~sol[ref]["valid"].astype(bool)).sum())})
    summ.append(s)
cols = ["comparison", "candidate", "reference", "n_dilemmas", "n_dilemmas_eaa_defined", "SAA", "EAA", "AVG", "pairs",
        "judged_pairs", "identical_pairs", "valid", "invalid", "cand_extraction_invalid", "ref_extraction_invalid"]
summary = pd.DataFrame(summ, columns=cols)
summary.to_csv(snakemake.output.summary, sep="\t", index=False)
pd.concat(per, ignore_index=True).to_csv(snakemake.output.per_dilemma, sep="\t", index=False)
counts_ = {"valid": int(summary["valid"].sum()), "invalid": int(summary["invalid"].sum())}
for out in snakemake.output:
    write_sidecar(out, config=snakemake.config, counts=counts_)
log.info("\n%s", summary.to_string())
