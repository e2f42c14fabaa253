"""The jobs every study does, written once.

* ``job``: the thin-script side of a rule (logging, params, tables with sidecars);
* ``tables``: reading/writing TSV tables with their provenance;
* ``htmltables``: the HTML page of a table shown in the report;
* ``figures``: the one figure style (300 dpi, readable cells, display names, synthetic mark);
* ``provenance``: sidecars, the project's one content hash, canonical params;
* ``prompts``: prompt templates (``$name`` placeholders) and their hashes;
* ``seeds``: derived seeds;
* ``shards``: sharding a stage's rows and gathering them;
* ``download``: downloads with pinned revision and sha256;
* ``codehash``: package code as a rerun trigger.

Sampling settings come from config through ``cultalign.models.SamplingParams.from_config``.
"""
