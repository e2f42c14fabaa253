from cultalign.core.job import Job
from cultalign.core.tables import read_tsv
from cultalign.pact.expand import construction_counts, expand, validated_scenarios

job = Job(snakemake)
scenarios, per_source = validated_scenarios([read_tsv(p) for p in job.input.validated], list(job.input.validated))
instances = expand(scenarios, job.seed, job.params.combinations_per_scenario)
counts = construction_counts(per_source, instances)
for table, path in ((instances, job.output.instances), (counts, job.output.counts)):
    job.write_table(table, path, seed=job.seed, counts={"instances": len(instances)})
job.log.info("construction counts %s", counts.to_dict("records"))
