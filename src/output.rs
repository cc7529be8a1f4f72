//! Output files of a batch run: verdicts.jsonl, clusters.tsv, clusters.json.
