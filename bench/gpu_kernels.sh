#!/usr/bin/env bash
# gpu_kernels.sh: the shipped example kernels (kernels/examples/) on a GPU: for each of gather
# (latency-bound), saxpy (bandwidth-bound, 16 M items) and compute (compute-bound), in the
# kernel-only and pipelined modes, --sweep 1,2,4,8 (processes) and --sweep 1x1,1x2,1x4,1x8
# (queues of one process), with the ceiling calibrated in the same run; prints one table of
# Mitem/s, device busy, queue wait and the gap between batches per step (doc/your-kernel.md).
# Usage: bench/gpu_kernels.sh BINARY P:D [OUTDIR] [SECONDS]
# The sweep logs (JSONL) stay in OUTDIR (default build/bench-kernels); SECONDS per step (5).
set -u
if [ $# -lt 2 ]; then
	echo "usage: $0 BINARY P:D [OUTDIR] [SECONDS]" >&2
	exit 2
fi
BIN=$1 DEV=$2 OUT=${3:-build/bench-kernels} T=${4:-5}
EX=$(cd "$(dirname "$0")/../kernels/examples" && pwd)
mkdir -p "$OUT"
{
	date -u
	nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null
	"$BIN" --list-devices | grep "^$DEV "
	echo "cores: $(nproc)"
} >"$OUT/env.txt" 2>&1

# name: the example's file, its size, and its own arguments
examples=(
	"gather|1000000|"
	"saxpy|16777216|--arg a=2"
	"compute|1000000|"
)
for ex in "${examples[@]}"; do
	IFS='|' read -r name size args <<<"$ex"
	for mode in kernel-only pipelined; do
		for sweep in 1,2,4,8 1x1,1x2,1x4,1x8; do
			tag="$name-$mode-${sweep//,/_}"
			# shellcheck disable=SC2086 # args is a list of words
			"$BIN" -d "$DEV" --kernel "$EX/$name.cl" $args -s "$size" -m "$mode" -i 0.5 -D "$T" \
				--calibrate --sweep "$sweep" -f jsonl -o "$OUT/$tag.jsonl" >"$OUT/$tag.txt" 2>>"$OUT/stderr.txt" ||
				echo "$tag: failed (see $OUT/stderr.txt)" >&2
		done
	done
done
echo "done $(date -u)" >>"$OUT/env.txt"

python3 - "$OUT" <<'PY'
import glob, json, os, sys
out = sys.argv[1]
def cell(v, fmt):
    return "n/a" if v is None else format(v, fmt)
print("%-8s %-11s %5s %6s %10s %8s %7s %9s %13s %12s" % ("kernel", "mode", "procs", "queues", "Mitem/s",
      "speedup", "busy%", "%ceiling", "queue_wait_us", "gap_batch_us"))
for name in ("gather", "saxpy", "compute"):
    for mode in ("kernel-only", "pipelined"):
        for sweep in ("1_2_4_8", "1x1_1x2_1x4_1x8"):
            path = os.path.join(out, "%s-%s-%s.jsonl" % (name, mode, sweep))
            if not os.path.exists(path):
                continue
            for line in open(path):
                r = json.loads(line)
                if r.get("kind") != "sweep":
                    continue
                busy, ofc = r.get("device_busy"), r.get("of_ceiling")
                print("%-8s %-11s %5d %6d %10.2f %8s %7s %9s %13s %12s" % (
                    name, mode, r["procs"], r["queues"], r["mbit_s"], cell(r.get("speedup"), ".2f"),
                    cell(None if busy is None else 100 * busy, ".1f"),
                    cell(None if ofc is None else 100 * ofc, ".1f"),
                    cell(r.get("queue_wait_us"), ".1f"), cell(r.get("gap_batch_us"), ".1f")))
print("Mitem/s: millions of work items per second (--size x --launches per batch); "
      "busy%: union of kernel intervals / time; %ceiling: of the same run's --calibrate")
PY
