#!/usr/bin/env bash
# `make bench GPU=1:0` as one call on the H200, with the binary of commit 948de9f (build/gpu20:
# gputop-decode, libgputop-observe.so, and bench/ with ref_loop, seed_replica, bench_core);
# then the pipelined 4x4 sweep step (physics with four processes of eight lanes) and the
# worker's threads in a pipelined f32 run (does its own thread still sleep?).
set -u
mkdir -p /tmp/icd && echo /usr/lib/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export GPUTOP_DECODE_KERNELS=$PWD/kernels
G=build/gpu20 D=doc/measurements/h200-2026-12-03
export LD_LIBRARY_PATH=$PWD/$G/lib
O=$OUT/bench
python3 -c 'import numpy; print("numpy", numpy.__version__)' 2>&1
REPS=2 bash bench/gpu_bench.sh $G/gputop-decode $G/bench 1:0 $O 5
python3 bench/bench_table.py $O | tee $OUT/table.md
echo "== pipelined 4x4, f64"
$G/gputop-decode -d 1:0 -m pipelined --sweep 1x8,4x4 -D 4 -i 0.5 -t f64 --calibrate -f jsonl -o $O/sweep-4x4.jsonl 2>>$O/stderr.txt
$G/gputop-decode --headless -d 1:0 -m pipelined -t f32 --profile off -D 5 -i 0.5 -f jsonl -o $O/threads.jsonl 2>>$O/stderr.txt &
p=$!; sleep 2; w=$(pgrep -P $p | head -1); echo "== threads of a pipelined f32 worker, --profile off"
doc/measurements/h200-2026-12-02-s5/threads.sh $w 2 | head -4; wait $p; python3 bench/summarize.py $O/threads.jsonl
date -u
cd $OUT && tar czf bench.tgz bench && rm -rf bench
