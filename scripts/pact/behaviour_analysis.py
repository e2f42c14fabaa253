import pandas as pd

from cultalign.pact import analysis
from cultalign.provenance import write_sidecar
from cultalign.smk import setup_logging

log = setup_logging(snakemake)
cfg = snakemake.config
nb, seed = cfg["pact"]["behaviour"]["bootstrap"], cfg["seed"]
d = pd.read_csv(snakemake.input.table, sep="\t", keep_default_na=False, na_values=[""])
if "preference_theme" not in d.columns:  # decision tables gathered before the theme bins existed
    d = analysis.add_preference_bins(d)
o = snakemake.output
# comparison-only models (base / larger counterparts) enter Figure 4 and the pair table only
everything = d
d = d[d["model"].isin(cfg["pact"]["models"])]
log.info("main analyses on %d of %d decisions (models %s)", len(d), len(everything), cfg["pact"]["models"])
tables = {
    o.rates: analysis.rates_by(d, analysis.FACTORS, nb, seed),
    o.by_model_config: analysis.rates_by_model(d, ["configuration"], nb, seed),
    o.by_model_kind: analysis.rates_by_model(everything, ["model_kind"], nb, seed),
    o.model_pairs: analysis.model_pair_rates(everything, cfg["pact"]["model_pairs"], nb, seed),
    o.by_model: analysis.rates_by_model(d, [], nb, seed),
    o.chi_square: analysis.chi_square_table(d, analysis.FACTORS),
    o.demographics: analysis.demographic_effects(d),
    o.regions: analysis.region_deltas(d),
    o.region_pairs: analysis.region_pair_rates(d),
    o.preference_bins: analysis.preference_bins(d, nb, seed),
    o.strength_by_country: analysis.strength_by_country(d),
}
counts = {"valid": int((d["decision"] != "UNKNOWN").sum()), "invalid": int((d["decision"] == "UNKNOWN").sum())}
for path, t in tables.items():
    t.to_csv(path, sep="\t", index=False)
    write_sidecar(path, config=cfg, seed=seed, counts=counts)
log.info("analysis done: %s", counts)
