#!/usr/bin/env bash
# One call on the H200: is f32 at 100000 symbols bound by the device or by the host's enqueue
# rate? The plain loops at 50000-400000 symbols (the same calls, more work per call): a device
# bound keeps Mbit/s, a call-rate bound scales it with the size. Twice each, alternated; then
# the tool's calibration, three times at 100000 and at 400000 symbols.
set -u
mkdir -p /tmp/icd && echo /usr/lib/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export GPUTOP_DECODE_KERNELS=$PWD/kernels
export LD_LIBRARY_PATH=$PWD/build/gpu20/lib
X=build/gpu20/gputop-decode R=build/gpu21/bench/ref_loop
O=$OUT/bound K=kernels/decode.cl; mkdir -p $O
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; } 2>&1
for rep in 1 2; do
	for t in f32 f64; do
		for s in 50000 100000 200000 400000; do
			$R $K 1:0 $t $s 10 2 plain 8 normal
			$R $K 1:0 $t $s 10 2 plain 1 normal
			$R $K 1:0 $t $s 10 2 pipe 8 normal
		done
	done
done
for rep in 1 2 3; do
	for s in 100000 400000; do
		$X --headless -d 1:0 -t f32 -s $s -m kernel-only -n 0 -D 0.5 --calibrate -f jsonl -o $O/ceiling-$s-$rep.jsonl 2>>$O/stderr.txt
		echo "calibrate f32 size $s: $(grep -o '"ceiling":[0-9.]*' $O/ceiling-$s-$rep.jsonl | head -1)"
	done
done
date -u
cd $OUT && tar czf bound.tgz bound && rm -rf bound
