#!/usr/bin/env bash
# One call on the H200: what of the new pipelined worker makes the difference (ab1.sh found
# it). Binaries (build/gpu19): A the landed one; E the candidate: lock-free hand-off, two
# batches in flight per lane, lanes in turn, idle generators poll 50 us; E0 without polling;
# En without the cap on batches in flight; Ec with the lanes of the slots (not in turn); E3 with
# three per lane. f32 --profile off, 4 s each, alternated three times beside the plain loop;
# then A and E under the default sampled profiling, calibrated, twice, and f64.
set -u
mkdir -p /tmp/icd && echo /usr/lib/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export GPUTOP_DECODE_KERNELS=$PWD/kernels
G=build/gpu19 D=doc/measurements/h200-2026-12-03
export LD_LIBRARY_PATH=$PWD/$G/lib
O=$OUT/ab2 K=kernels/decode.cl; mkdir -p $O
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; } 2>&1
ref() { $G/bench/ref_loop $K 1:0 $1 100000 10 4 pipe 8; }
run() { # name variant args...
	local n=$1 v=$2; shift 2
	$G/$v/gputop-decode --headless -d 1:0 -m pipelined "$@" -D 4 -i 0.5 -f jsonl -o $O/$n.jsonl 2>>$O/stderr.txt
	python3 bench/summarize.py $O/$n.jsonl | sed "s|^[^ ]*|$n $*|"
}
ref f32
for rep in 1 2 3; do
	for v in A E E0 En Ec E3; do run $v-off-$rep $v -t f32 --profile off; done
	ref f32
done
for rep in 1 2; do for v in A E; do run $v-sampled-$rep $v -t f32 --calibrate; done; done
for v in A E; do run $v-f64-off $v -t f64 --profile off; run $v-f64-sampled $v -t f64 --calibrate; done
ref f64
date -u
cd $OUT && tar czf ab2.tgz ab2 && rm -rf ab2
