#!/usr/bin/env bash
# One call on the H200: the pipelined worker's hand-off to its generation threads, A/B.
# Binaries (build/gpu19): A the landed one (a mutex and a condition variable per batch);
# B lock-free tickets and a semaphore, idle generators poll 50 us before sleeping; B0 the same
# without polling; C as B with at most two batches in flight per lane, lanes taken in turn.
# f32 --profile off, 4 s each, alternated three times beside the plain loop; threads.sh samples
# the worker's threads in the second round; then each once under sampled, and f64.
set -u
mkdir -p /tmp/icd && echo /usr/lib/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export GPUTOP_DECODE_KERNELS=$PWD/kernels
G=build/gpu19 D=doc/measurements/h200-2026-12-03
export LD_LIBRARY_PATH=$PWD/$G/lib
O=$OUT/ab1 K=kernels/decode.cl; mkdir -p $O
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; } 2>&1
ref() { $G/bench/ref_loop $K 1:0 $1 100000 10 4 pipe 8; }
run() { # name variant args...
	local n=$1 v=$2; shift 2
	$G/$v/gputop-decode --headless -d 1:0 -m pipelined "$@" -D 4 -i 0.5 -f jsonl -o $O/$n.jsonl 2>>$O/stderr.txt &
	local p=$!
	if [ "${SAMPLE:-}" ]; then sleep 2; local w=$(pgrep -P $p | head -1); echo "-- $n threads"; doc/measurements/h200-2026-12-02-s5/threads.sh $w 1.5 | head -3; fi
	wait $p; python3 bench/summarize.py $O/$n.jsonl | sed "s|^[^ ]*|$n $*|"
}
ref f32
for rep in 1 2 3; do
	S=; [ $rep = 2 ] && S=1
	for v in A B B0 C; do SAMPLE=$S run $v-off-$rep $v -t f32 --profile off; done
	for v in B C; do run $v-g6-off-$rep $v -t f32 --profile off --gen-threads 6; done
	ref f32
done
for v in A B B0 C; do run $v-sampled $v -t f32 --calibrate; done
for v in A B B0 C; do run $v-f64-off $v -t f64 --profile off; done
ref f64
date -u
cd $OUT && tar czf ab1.tgz ab1 && rm -rf ab1
