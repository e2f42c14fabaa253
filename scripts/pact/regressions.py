from cultalign.core.job import Job
from cultalign.core.tables import read_tsv
from cultalign.pact.alignment import read_surveys
from cultalign.pact.regression import by_question, model_answers
from cultalign.stats.rglm import r_version

job = Job(snakemake)
p = job.params
h = read_tsv(job.input.responses)
m = model_answers(read_surveys(list(job.input.surveys)), p.no_persona_level)
nested = dict(p.nested or {})
tables = {"human": by_question(h, p.human_terms, "human", random=p.random_effects, nested=nested),
          "models": by_question(m, p.model_terms, "model", random=p.random_effects, nested=nested)}
fit = ("glmer(binomial, random intercepts: " + ", ".join(p.random_effects) + ")" if p.random_effects
       else "glm(binomial)")
for name, table in tables.items():
    job.write_table(table, job.output[name], counts={"valid": len(h) + len(m), "invalid": 0},
                    extra={"R": r_version(),
                           "fit": fit + " + drop-one likelihood-ratio chi-square + p.adjust('BH') via rpy2"})
