#!/usr/bin/env bash
# The sampler with rounds (commit 10ef78a) against --profile off, interleaved, two repetitions,
# with the calibrated ceiling: Mbit/s, device_busy, observer_share.
set -u
mkdir -p /tmp/icd && echo /usr/lib/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export GPUTOP_DECODE_KERNELS=$PWD/kernels
G=${G:-build/gpu5}
if ldd $G/gputop-decode | grep -q "not found"; then export LD_LIBRARY_PATH=$PWD/$G/lib; fi
O=$OUT/check1
mkdir -p $O
{ date -u; nvidia-smi --query-gpu=index,name,driver_version --format=csv; } >$O/host.txt 2>&1
run() { local name=$1; shift; $G/gputop-decode --headless -d 1:0 -i 0.5 -D 3 --calibrate -f jsonl -o $O/$name.jsonl "$@" 2>>$O/stderr.txt; }
for rep in 1 2; do
	for cfg in "k8f32:-m kernel-only --queues 8 -t f32" "p8f32:-m pipelined --queues 8 --gen-threads 12 -t f32" \
		"k1f64:-m kernel-only --queues 1 -t f64" "pdf32:-m pipelined -t f32" "pdf64:-m pipelined -t f64" \
		"p8f64:-m pipelined --queues 8 --gen-threads 12 -t f64"; do
		tag=${cfg%%:*} args=${cfg#*:}
		run $tag-off-$rep $args --profile off
		run $tag-sampled-$rep $args
	done
	run p8f32-full-$rep -m pipelined --queues 8 --gen-threads 12 -t f32 --profile full
done
python3 bench/summarize.py $O; cd $OUT && tar czf check1.tgz check1 && rm -rf check1
