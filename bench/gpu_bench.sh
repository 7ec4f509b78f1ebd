#!/usr/bin/env bash
# gpu_bench.sh: `make bench GPU=P:D` on a GPU machine: every arrangement of the same work side by
# side, in one run, as Mbit/s and as a ratio to the ceiling calibrated in the same run.
# Usage: bench/gpu_bench.sh BINARY REF_LOOP BENCH_CORE DEVICE OUTDIR [SECONDS]
# Raw logs go to OUTDIR; bench/bench_table.py OUTDIR prints the table. CONFIGS (default
# "100000:f64 100000:f32 1000000:f64") picks the sizes and element types.
set -u
BIN=$1 REF=$2 CORE=$3 DEV=$4 OUT=$5 T=${6:-3}
mkdir -p "$OUT"
K=kernels/decode.cl
{
	date -u
	nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null
	"$BIN" --list-devices | grep "^$DEV "
	echo "cores: $(nproc)"
} >"$OUT/env.txt" 2>&1
"$CORE" >"$OUT/core.txt" 2>&1

# name SIZE DTYPE ARGS...: one headless JSONL log named NAME
run() {
	local name=$1 size=$2 dt=$3
	shift 3
	"$BIN" --headless -d "$DEV" -s "$size" -t "$dt" -i 0.5 -D "$T" -f jsonl -o "$OUT/$name.jsonl" "$@" \
		2>>"$OUT/stderr.txt"
}
for cfg in ${CONFIGS:-100000:f64 100000:f32 1000000:f64}; do
	s=${cfg%:*} dt=${cfg#*:} tag=$s-$dt
	run "$tag-ceiling" "$s" "$dt" -m kernel-only -n 0 -D 0.5 --calibrate
	for q in 1 4; do
		"$REF" $K "$DEV" "$dt" "$s" 10 2 plain $q >>"$OUT/ref-$tag.txt" 2>&1
	done
	run "$tag-konly-1x4" "$s" "$dt" -m kernel-only --queues 4
	for n in 1 2 4 8 16; do
		run "$tag-seed-$n" "$s" "$dt" -m seed -n $n
	done
	for pqt in 1x4x4 1x4x8 1x8x12 2x4x6 4x4x3; do
		IFS=x read -r p q t <<<"$pqt"
		run "$tag-pipe-$pqt" "$s" "$dt" -m pipelined -n "$p" --queues "$q" --gen-threads "$t"
	done
	run "$tag-pipe-1x8x12-off" "$s" "$dt" -m pipelined -n 1 --queues 8 --gen-threads 12 --profile off
done
# The supervisor's own cost with 16 workers: CPU time over the run and resident memory at its end
# (collection and logging; the dashboard's drawing on top is measured by bench/dashboard_cost.sh).
"$BIN" --headless -d "$DEV" -n 16 -i 1 -D $((T + 3)) -o /dev/null 2>>"$OUT/stderr.txt" &
pid=$!
sleep $((T + 2))
read -r ut st < <(awk '{print $14, $15}' "/proc/$pid/stat")
rss=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status")
wait $pid
echo "supervisor, 16 workers, $((T + 2)) s: cpu $(((ut + st) * 100 / $(getconf CLK_TCK))) cs, rss ${rss} kB" >"$OUT/supervisor.txt"
# Every batch against the CPU reference, through generation threads, both element types.
for dt in f64 f32; do
	"$BIN" --headless -d "$DEV" -t $dt -m pipelined --queues 8 --gen-threads 12 --verify -i 0.5 -D 2 -f jsonl \
		-o "$OUT/verify-$dt.jsonl" 2>>"$OUT/stderr.txt"
	if grep -q '"state":"failed"' "$OUT/verify-$dt.jsonl"; then r=FAILED; else r=ok; fi
	echo "verify every batch, pipelined 8 queues 12 threads, $dt: $r" >>"$OUT/supervisor.txt"
done
echo "done $(date -u)" >>"$OUT/env.txt"
