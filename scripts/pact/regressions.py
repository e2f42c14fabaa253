from cultalign.core.job import Job
from cultalign.core.tables import read_tsv
from cultalign.pact.alignment import read_surveys
from cultalign.pact.regression import by_question, model_answers
from cultalign.stats.rglm import r_version

job = Job(snakemake)
h = read_tsv(job.input.responses)
m = model_answers(read_surveys(list(job.input.surveys)))
tables = {"human": by_question(h, job.params.human_terms, "human"),
          "models": by_question(m, job.params.model_terms, "model")}
for name, table in tables.items():
    job.write_table(table, job.output[name], counts={"valid": len(h) + len(m), "invalid": 0},
                    extra={"R": r_version(), "fit": "glm(binomial) + drop1(test='Chisq') + p.adjust('BH') via rpy2"})
