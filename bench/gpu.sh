#!/usr/bin/env bash
# gpu.sh: the measurements recorded in doc/ for a GPU machine, in one run. Usage:
#   bench/gpu.sh BINARY OUTDIR [SECONDS]
# Runs: device list; separate headless runs with 1, 2, 4 and 8 workers; seed-mode sweeps in
# f64 and f32; pipelined and kernel-only sweeps; a trace of 4 workers; nvidia-smi's view of
# 16 workers next to the tool's. Results are plain text files in OUTDIR.
set -u
BIN=$1 OUT=$2 T=${3:-5}
mkdir -p "$OUT"
run() { # run NAME ARGS...: stdout to NAME.txt, stderr appended
	local name=$1
	shift
	echo "== $name: $*" | tee -a "$OUT/summary.txt"
	"$BIN" "$@" >"$OUT/$name.txt" 2>>"$OUT/stderr.txt"
	tail -n 12 "$OUT/$name.txt" >>"$OUT/summary.txt"
}
{ date -u; uname -a; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv 2>&1; } >"$OUT/summary.txt"
"$BIN" --list-devices >>"$OUT/summary.txt" 2>&1

# The kernel against the CPU reference on this device, every dtype and mode.
for dtype in f32 f64; do
	for mode in seed pipelined kernel-only; do
		"$BIN" --headless --verify -n 2 -t $dtype -m $mode -D 2 -f jsonl -o "$OUT/verify.jsonl" 2>>"$OUT/stderr.txt"
		if grep -q '"state":"failed"' "$OUT/verify.jsonl"; then r=FAILED; else r=ok; fi
		echo "verify $dtype $mode: $r" >>"$OUT/summary.txt"
	done
done

for n in 1 2 4 8; do
	"$BIN" --headless -n "$n" -D "$T" -i 1 -f csv -o "$OUT/procs$n.csv" 2>>"$OUT/stderr.txt"
	echo "procs $n: $(awk -F, '$2=="aggregate"{m=$7} END{print m " Mbit/s (last window)"}' "$OUT/procs$n.csv")" >>"$OUT/summary.txt"
done
run sweep_seed_f64 --sweep 1,2,4,8,16,32 -D "$T" -i 0.5 -t f64
run sweep_seed_f32 --sweep 1,2,4,8,16 -D "$T" -i 0.5 -t f32
run sweep_pipelined_f64 --sweep 1,2,4,8,16 -D "$T" -i 0.5 -t f64 -m pipelined
run sweep_konly_f64 --sweep 1,2,4,16 -D "$T" -i 0.5 -t f64 -m kernel-only
run sweep_konly_f32 --sweep 1,4 -D "$T" -i 0.5 -t f32 -m kernel-only
run sweep_seed_1M --sweep 1,4,16 -D "$T" -i 0.5 -s 1000000

# 16 workers of the original loop: the tool's device busy next to nvidia-smi's utilisation.
"$BIN" --headless -n 16 -D $((T + 4)) -i 1 -f jsonl -o "$OUT/dmon16.jsonl" 2>>"$OUT/stderr.txt" &
pid=$!
sleep 3
timeout $((T)) nvidia-smi dmon -s u -d 1 >"$OUT/dmon16.txt" 2>&1
wait $pid
# A short trace of 4 workers for Perfetto.
"$BIN" --headless -n 4 -D 2 -i 0.5 -f jsonl -o "$OUT/trace4.jsonl" --trace "$OUT/trace4.json" \
	--trace-limit 200000 2>>"$OUT/stderr.txt"
gzip -9 "$OUT/trace4.json"
echo "done $(date -u)" >>"$OUT/summary.txt"
