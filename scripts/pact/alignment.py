from cultalign.core.job import Job
from cultalign.pact.alignment import SIGN_NOTE, alignment_tables, read_surveys
from cultalign.pact.human import is_synthetic, read_responses

job = Job(snakemake)
h = read_responses(job.input.responses)
m = read_surveys(list(job.input.surveys))
synthetic = is_synthetic(h)
tables = alignment_tables(m, h, job.params.prompt_formats[0], synthetic, job.params.item_unit)
counts = {"valid": int(m["follow_culture"].notna().sum()), "invalid": int(m["follow_culture"].isna().sum())}
extra = {"signed_gap_convention": SIGN_NOTE, "synthetic_human_data": synthetic, "item_unit": job.params.item_unit,
         "metric_names": {"rate_mae_item": "mean_i |m_i - h_i| (item-level MAE)",
                          "rate_gap_aggregate": "|mean m - mean h| per frame (the paper's reported MAE)"}}
for name, table in tables.items():
    job.write_table(table, job.output[name], counts=counts, extra=extra)
