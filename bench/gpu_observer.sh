#!/usr/bin/env bash
# gpu_observer.sh: the observer's cost under each profiling policy, kernel-only and seed, with
# the period the sampler chose and the share it measured. Usage:
#   bench/gpu_observer.sh BINARY OUTDIR [SECONDS]     (DEV=P:D picks the device)
set -u
BIN=$1 OUT=$2 T=${3:-4}
DEV=${DEV:-0:0}
mkdir -p "$OUT"
run() { # run NAME ARGS...
	local name=$1
	shift
	"$BIN" --headless -d "$DEV" -i 0.5 -D "$T" -f jsonl -o "$OUT/$name.jsonl" "$@" 2>>"$OUT/stderr.txt"
}
for rep in 1 2; do
	for dt in f64 f32; do
		run obs-$dt-off-r$rep -m kernel-only -t $dt --profile off
		run obs-$dt-adapt-r$rep -m kernel-only -t $dt
		run obs-$dt-every4096-r$rep -m kernel-only -t $dt --sample-every 4096
		run obs-$dt-every64-r$rep -m kernel-only -t $dt --sample-every 64
	done
done
run obs-seed16-off -m seed -n 16 --profile off
run obs-seed16-adapt -m seed -n 16
