#!/usr/bin/env bash
# Checks the cluster recipes: the Slurm script's syntax (bash -n) and that the Kubernetes YAML parses
# into the two Jobs with the fields the recipe relies on (in the tools' virtual environment).
set -euo pipefail
cd "$(dirname "$0")/../.."
bash -n Tools/cluster/eval.sbatch
ARSIM_EXTRA_REQUIREMENTS=Tools/requirements-cluster.txt Tools/python.sh - <<'PY'
import yaml
docs = list(yaml.safe_load_all(open("Tools/cluster/eval-job.yaml")))
assert [d["kind"] for d in docs] == ["Job", "Job"], "expected two Jobs"
shards, merge = docs
spec = shards["spec"]
assert spec["completionMode"] == "Indexed", "the eval Job must be Indexed"
env = {e["name"]: e["value"] for e in spec["template"]["spec"]["containers"][0]["env"]}
assert int(env["SHARDS"]) == spec["completions"], "SHARDS must equal completions"
merge_env = {e["name"]: e["value"] for e in merge["spec"]["template"]["spec"]["containers"][0]["env"]}
assert merge_env["SHARDS"] == env["SHARDS"], "both Jobs must agree on SHARDS"
assert "JOB_COMPLETION_INDEX" in spec["template"]["spec"]["containers"][0]["args"][0]
assert "arsim eval merge" in merge["spec"]["template"]["spec"]["containers"][0]["args"][0]
print("cluster recipes: eval.sbatch syntax ok; eval-job.yaml: 2 Jobs,", spec["completions"], "shards")
PY
