import pandas as pd

from cultalign.core.job import Job
from cultalign.statements import check_papers, load_lexicon, paper_texts, summary

job = Job(snakemake)
lexicon = load_lexicon(job.input.lexicon)
texts = paper_texts(lexicon, job.input.texts)
results = {f: pd.read_csv(f, sep="\t", keep_default_na=False) for f in job.input.tables}
table = check_papers(texts, lexicon, results)
counts = summary(table)
job.write_table(table, job.output.table, extra={"source": job.input.texts},
                counts={f"{r.paper} {r.rule}: {r.status}": int(r.count) for r in counts.itertuples()})
job.log.info("statements in words: %s", table.groupby(["rule", "status"]).size().to_dict())
