from cultalign.core.job import Job
from cultalign.core.provenance import synthetic_inputs_of_files
from cultalign.model_card import (MEASURES, card_html, card_rows, monopolet_tables, pact_tables, personas_tables,
                                  plot_measure)

job = Job(snakemake)
p = job.params
i = job.input
model = p.model
tables, files = {}, {}
if "pact" in p.studies:
    files["pact"] = [*i.pact_shards, i.pact_survey, i.pact_responses]
    tables["pact"] = pact_tables(list(i.pact_shards), i.pact_survey, i.pact_responses, model,
                                 p.spec.get("kind", "instruct"), p.prompt_formats[0], p.item_unit, p.bootstrap,
                                 job.seed)
if "personas" in p.studies:
    files["personas"] = [*i.personas_mcs, *i.personas_oeg, i.personas_human]
    tables["personas"] = personas_tables(list(i.personas_mcs), list(i.personas_oeg), i.personas_human)
if "monopolet" in p.studies:
    files["monopolet"] = [i.monopolet_matching, i.monopolet_solutions, i.monopolet_panel]
    tables["monopolet"] = monopolet_tables(i.monopolet_matching, i.monopolet_solutions, i.monopolet_panel, model,
                                           p.bootstrap, job.seed)
# each study's inputs: real, or the SYNTHETIC inputs its tables' sidecars name
synthetic = {s: synthetic_inputs_of_files(f) for s, f in files.items()}
inputs = {s: ("SYNTHETIC: " + ", ".join(k)) if k else "real" for s, k in synthetic.items()}
# the PACT authors' figure data (config real_data.pact_site_data), where the config has it: the
# published values the paper shows only in its figures
figure_data = {}
if "pact_site_data" in i.keys():
    from cultalign.core.tables import read_tsv

    figure_data[p.site_data_table] = read_tsv(i.pact_site_data)
rows = card_rows(model, tables, i.claims, inputs, figure_data)
by_name = {m.name: m for m in MEASURES}
figures = {}
for name, out in zip(p.figures, job.output):
    m = by_name[name]
    plot_measure(rows, m, model, out, names=dict(p.model_names), synthetic=synthetic.get(m.study, []))
    job.sidecar(out)
    figures[name] = out
counts = {"values": int((rows["source"] == "this run").sum()), "published": int((rows["source"] == "published").sum())}
job.write_table(rows, job.output.table, counts=counts, extra={"skipped_studies": dict(p.skips)})
page = card_html(model, dict(p.spec), rows, dict(p.skips), list(p.studies), figures, inputs)
with open(job.output.card, "w", encoding="utf-8") as f:
    f.write(page)
job.sidecar(job.output.card)
# the report's entry: the card with its figures named (each is an entry of the section)
with open(job.output.report_page, "w", encoding="utf-8") as f:
    f.write(card_html(model, dict(p.spec), rows, dict(p.skips), list(p.studies), figures, inputs, embed=False))
job.sidecar(job.output.report_page)
job.log.info("model card of %s: %s; skipped: %s", model, counts, dict(p.skips))
