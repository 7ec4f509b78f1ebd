#!/usr/bin/env bash
# One call on the H200: the f32 pipelined defaults where the device, not the host, bounds f32
# (bound.sh): 400000 and 200000 symbols, the default sampled profiling against --profile off,
# alternated (4 s each, each run calibrated), beside the plain pipelined loop. The shipped
# binary (build/gpu20, 948de9f).
set -u
mkdir -p /tmp/icd && echo /usr/lib/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export GPUTOP_DECODE_KERNELS=$PWD/kernels
export LD_LIBRARY_PATH=$PWD/build/gpu20/lib
X=build/gpu20/gputop-decode R=build/gpu21/bench/ref_loop
O=$OUT/size K=kernels/decode.cl; mkdir -p $O
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; } 2>&1
run() { # name args...
	local n=$1; shift
	$X --headless -d 1:0 -t f32 -m pipelined --calibrate "$@" -D 4 -i 0.5 -f jsonl -o $O/$n.jsonl 2>>$O/stderr.txt
	echo "$(python3 bench/summarize.py $O/$n.jsonl | sed "s|^[^ ]*|$n $*|")  ceiling $(grep -o '"ceiling":[0-9.]*' $O/$n.jsonl | head -1 | cut -d: -f2)"
}
for s in 400000 200000; do
	for rep in 1 2 3; do
		$R $K 1:0 f32 $s 10 2 pipe 8 normal
		if [ $((rep % 2)) = 1 ]; then
			run s$s-sampled-$rep -s $s; run s$s-off-$rep -s $s --profile off
		else
			run s$s-off-$rep -s $s --profile off; run s$s-sampled-$rep -s $s
		fi
	done
done
date -u
cd $OUT && tar czf size.tgz size && rm -rf size
