#!/usr/bin/env bash
# Runs an analyst eval suite on a Slurm cluster: a job array with one shard
# per task (shard.sbatch), and a merge job (merge.sbatch) that starts only
# when every task succeeded (--dependency=afterok), joins the shards into
# one run and fails (exit 6) when a model scores below MIN_SCORE.
#
#   examples/eval/slurm/submit.sh SUITE MODEL SHARDS OUT [MIN_SCORE]
#   examples/eval/slurm/submit.sh evals/ ollama:qwen2.5-coder:7b 8 /shared/eval-out 0.6
#
# Prints the array's and the merge job's ids. OUT must be on a file system
# every node sees (the merge reads every shard's folder); the merged run is
# OUT/merged, each task's log OUT/slurm-ARRAY_TASK.out.
#
# Every node needs analyst on PATH (or $ANALYST, a path to it), podman,
# and the kernel image: ANALYST_CACHE_DIR on the shared file system with
# the image built once (`analyst kernel build`), or built on each node.
# sbatch hands the tasks this shell's environment (--export=ALL), so set
# them, and the model server, here:
#
# - Model server elsewhere (a GPU box, a hosted API): point at it before
#   submitting, e.g. OLLAMA_HOST=http://models.internal:11434, or
#   OPENAI_API_KEY with ANALYST_BASE_URL (or OPENAI_BASE_URL); every compute node
#   must reach it.
# - Model server on a node of the allocation: start it as a job of its own
#   and point the shards at the node it got, then stop it after the merge:
#     srv=$(sbatch --parsable --gres=gpu:1 --wrap 'OLLAMA_HOST=0.0.0.0:11434 ollama serve')
#     until node=$(squeue -h -j "$srv" -t RUNNING -o %N) && [ -n "$node" ]; do sleep 5; done
#     export OLLAMA_HOST=http://$node:11434
#     read -r array merge < <(examples/eval/slurm/submit.sh SUITE MODEL 8 OUT 0.6)
#     sbatch --dependency=afterany:"$merge" --wrap "scancel $srv"
#
# Each task runs `analyst eval --shard auto`, which reads its shard from
# SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT (and _MIN, _MAX, _STEP:
# --array=1-8 or 0-14:2 work too) and says which shard it took.
set -euo pipefail
if [ $# -lt 4 ] || [ $# -gt 5 ]; then
	echo "usage: $0 SUITE MODEL SHARDS OUT [MIN_SCORE]" >&2
	exit 2
fi
suite=$1 model=$2 shards=$3 out=$4 min_score=${5:-0}
case $shards in
'' | *[!0-9]* | 0)
	echo "$0: SHARDS must be a whole number of at least 1, got '$shards'" >&2
	exit 2
	;;
esac
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
suite=$(cd "$(dirname "$suite")" && pwd)/$(basename "$suite")

# --parsable prints "ID" or "ID;CLUSTER".
array=$(sbatch --parsable --array="0-$((shards - 1))" --output="$out/slurm-%A_%a.out" \
	"$here/shard.sbatch" "$suite" "$model" "$out")
array=${array%%;*}
# --kill-on-invalid-dep: a failed shard cancels the merge instead of
# leaving it pending for ever.
merge=$(sbatch --parsable --dependency="afterok:$array" --kill-on-invalid-dep=yes \
	--output="$out/slurm-merge-%j.out" "$here/merge.sbatch" "$out" "$shards" "$min_score")
merge=${merge%%;*}
echo "$array $merge"
