import pandas as pd

from cultalign.pact.alignment import PROMPT_FORMATS, run_survey, survey_requests
from cultalign.pact.prompts_io import template_hashes
from cultalign.provenance import write_sidecar
from cultalign.smk import client_for, setup_logging

log = setup_logging(snakemake)
cfg = snakemake.config
ac = cfg["pact"]["alignment"]
h = pd.read_csv(snakemake.input.responses, sep="\t", keep_default_na=False)
sc = pd.read_csv(snakemake.input.validated, sep="\t", keep_default_na=False)
reqs = survey_requests(h, sc, ac, cfg["seed"])
client = client_for(snakemake, snakemake.wildcards.model)
out = run_survey(reqs, client, ac, cfg["seed"], cfg["retry"]["max_attempts"])
out.insert(0, "model", snakemake.wildcards.model)
out.to_csv(snakemake.output.table, sep="\t", index=False)
write_sidecar(snakemake.output.table, config=cfg, client=client, seed=cfg["seed"],
              prompt_templates=template_hashes(*[f"survey_{f}" for f in PROMPT_FORMATS]),
              counts={"valid": int(out["valid"].sum()), "invalid": int((~out["valid"]).sum())})
log.info("survey: %d prompts; stats %s", len(out), client.stats)
