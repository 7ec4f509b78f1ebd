#!/usr/bin/env bash
# gpu_profile.sh: what the profiling policies, queues and calibration do on a GPU, side by side
# with the plain reference loop (bench/ref_loop.c), in one run. Usage:
#   bench/gpu_profile.sh BINARY REF_LOOP OUTDIR [SECONDS]
# Every figure is written raw to OUTDIR (JSONL logs, the reference loop's lines, sweep tables);
# bench/profile_table.py turns them into the tables of doc/PERFORMANCE.md.
set -u
BIN=$1 REF=$2 OUT=$3 T=${4:-4}
mkdir -p "$OUT"
K=kernels/decode.cl
DEV=${DEV:-0:0}
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1; "$BIN" --list-devices; } >"$OUT/env.txt" 2>&1

for dt in f64 f32; do
	for v in plain profq events lastevent; do
		"$REF" $K $DEV $dt 100000 10 2 $v 1 >>"$OUT/ref.txt" 2>&1
	done
	for q in 2 4 8; do
		"$REF" $K $DEV $dt 100000 10 2 plain $q >>"$OUT/ref.txt" 2>&1
	done
done

run() { # run NAME ARGS...: one headless JSONL log
	local name=$1
	shift
	"$BIN" --headless -d $DEV -i 0.5 -D "$T" -f jsonl -o "$OUT/$name.jsonl" "$@" 2>>"$OUT/stderr.txt"
}
for dt in f64 f32; do
	for p in off sampled full; do
		run konly-$dt-$p-q1 -m kernel-only -t $dt --profile $p
	done
	for q in 2 4 8; do
		run konly-$dt-sampled-q$q -m kernel-only -t $dt --queues $q
		run konly-$dt-off-q$q -m kernel-only -t $dt --queues $q --profile off
	done
	run calib-$dt -m kernel-only -t $dt -n 0 -D 1 --calibrate
done
for n in 1 16; do
	for p in off sampled full; do
		run seed-f64-$p-n$n -m seed -t f64 -n $n --profile $p
	done
done
"$BIN" -d $DEV -m kernel-only -t f64 --sweep 1x1,1x2,1x4,4x1,16x1 -D "$T" -i 0.5 --calibrate -f jsonl \
	-o "$OUT/sweep-konly.jsonl" >"$OUT/sweep-konly.txt" 2>>"$OUT/stderr.txt"
"$BIN" -d $DEV -m seed -t f64 --sweep 1,4,16 -D "$T" -i 0.5 --calibrate -f jsonl \
	-o "$OUT/sweep-seed.jsonl" >"$OUT/sweep-seed.txt" 2>>"$OUT/stderr.txt"
"$BIN" -d $DEV -m pipelined -t f64 --sweep 1x1,1x4,1x8,4x4 -D "$T" -i 0.5 --calibrate -f jsonl \
	-o "$OUT/sweep-pipe.jsonl" >"$OUT/sweep-pipe.txt" 2>>"$OUT/stderr.txt"
echo "done $(date -u)" >>"$OUT/env.txt"
