from cultalign.core.job import Job
from cultalign.pact.figures import main_figures

job = Job(snakemake)
i, o = job.input, job.output
main_figures(i.by_model_config, i.by_model_kind, i.model_pairs, i.demographics, i.regions, i.gaps, i.agreement,
             i.alignment, o.fig3, o.fig4, o.fig5, o.fig6, o.fig7, job.params.figure7_setting)
for path in o:
    job.sidecar(path)
job.log.info("figures written: %s", list(o))
