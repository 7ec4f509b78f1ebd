#!/usr/bin/env bash
# gpu_bench.sh: `make bench GPU=P:D` on a GPU machine: each arrangement under the default
# profiling (sampled) beside the same arrangement under --profile off, interleaved and repeated,
# with the ceiling calibrated in the same run, so every figure is a ratio to what the device does
# without the tool. Usage: bench/gpu_bench.sh BINARY BENCH_DIR DEVICE OUTDIR [SECONDS]
# (BENCH_DIR holds the plain loops ref_loop and seed_replica, and bench_core; the numpy replica,
# bench/seed_replica.py, runs where python3 has numpy).
# Raw logs go to OUTDIR; bench/bench_table.py OUTDIR prints the table (steady windows: the second
# half of each run, once the sampler's period has settled). DTYPES (default "f64 f32") and REPS
# (default 2) pick the element types and repetitions.
set -u
BIN=$1 REF=$2/ref_loop REPLICA=$2/seed_replica CORE=$2/bench_core DEV=$3 OUT=$4 T=${5:-6}
mkdir -p "$OUT"
K=kernels/decode.cl
{
	date -u
	nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null
	"$BIN" --list-devices | grep "^$DEV "
	echo "cores: $(nproc)"
	echo "seconds per run: $T"
} >"$OUT/env.txt" 2>&1
"$CORE" >"$OUT/core.txt" 2>&1

# name DTYPE ARGS...: one headless JSONL log named NAME (100000 symbols, 10 launches)
run() {
	local name=$1 dt=$2
	shift 2
	"$BIN" --headless -d "$DEV" -t "$dt" -i 0.5 -D "$T" -f jsonl -o "$OUT/$name.jsonl" "$@" 2>>"$OUT/stderr.txt"
}
ARR=("pipelined:-m pipelined" "pipe-8x12:-m pipelined --queues 8 --gen-threads 12"
	"konly-8:-m kernel-only --queues 8" "konly-1:-m kernel-only --queues 1")
for dt in ${DTYPES:-f64 f32}; do
	run "$dt-ceiling-a" "$dt" -m kernel-only -n 0 -D 0.5 --calibrate
	for q in 1 8; do
		"$REF" $K "$DEV" "$dt" 100000 10 2 plain $q >>"$OUT/ref-$dt.txt" 2>&1
	done
	# What a pipelined batch's commands get with nothing else on the host (no generation).
	"$REF" $K "$DEV" "$dt" 100000 10 2 pipe 8 >>"$OUT/ref-$dt.txt" 2>&1
	for rep in $(seq "${REPS:-2}"); do
		for a in "${ARR[@]}"; do
			tag=${a%%:*} args=${a#*:}
			run "$dt-$tag-off-$rep" "$dt" $args --profile off
			run "$dt-$tag-sampled-$rep" "$dt" $args
		done
	done
	run "$dt-pipe-8x12-full-1" "$dt" -m pipelined --queues 8 --gen-threads 12 --profile full
	run "$dt-konly-1-full-1" "$dt" -m kernel-only --queues 1 --profile full
	# The seed mode beside two independent replicas of the original loop: in C
	# (bench/seed_replica.c) and in Python with numpy's own normal (bench/seed_replica.py).
	if [ "$dt" = f64 ]; then
		for rep in $(seq "${REPS:-2}"); do
			for n in 1 4 16; do
				timeout 120 "$REPLICA" $K "$DEV" "$dt" 100000 10 "$T" $n >>"$OUT/replica-$dt.txt" 2>&1
				python3 -c 'import numpy' 2>/dev/null &&
					timeout 120 python3 bench/seed_replica.py $K "$DEV" "$dt" 100000 10 "$T" $n \
						>>"$OUT/replica-numpy-$dt.txt" 2>&1
				run "$dt-seed-$n-off-$rep" "$dt" -m seed -n $n --profile off
				run "$dt-seed-$n-sampled-$rep" "$dt" -m seed -n $n
			done
		done
	fi
	run "$dt-ceiling-b" "$dt" -m kernel-only -n 0 -D 0.5 --calibrate
done
# The supervisor's own cost with 16 workers: CPU time over the run and resident memory at its end
# (collection and logging; the dashboard's drawing on top is measured by bench/dashboard_cost.sh).
"$BIN" --headless -d "$DEV" -n 16 -i 1 -D 6 -o /dev/null 2>>"$OUT/stderr.txt" &
pid=$!
sleep 5
read -r ut st < <(awk '{print $14, $15}' "/proc/$pid/stat")
rss=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status")
wait $pid
echo "supervisor, 16 workers, 5 s: cpu $(((ut + st) * 100 / $(getconf CLK_TCK))) cs, rss ${rss} kB" >"$OUT/supervisor.txt"
# Every batch against the CPU reference, through generation threads, both element types.
for dt in f64 f32; do
	"$BIN" --headless -d "$DEV" -t $dt -m pipelined --queues 8 --gen-threads 12 --verify -i 0.5 -D 2 -f jsonl \
		-o "$OUT/verify-$dt.jsonl" 2>>"$OUT/stderr.txt"
	if grep -q '"state":"failed"' "$OUT/verify-$dt.jsonl"; then r=FAILED; else r=ok; fi
	echo "verify every batch, pipelined 8 queues 12 threads, $dt: $r" >>"$OUT/supervisor.txt"
done
echo "done $(date -u)" >>"$OUT/env.txt"
