#!/usr/bin/env bash
# One call on the H200: the f32 pipelined worker before (build/gpu16, commit 13b7ef1) and after
# (build/gpu17: a kernel per batch, arguments set once; generation jobs seen done without the
# pool's lock), alternated three times so that the host's drift falls on both alike; 5 s each,
# the mean of the windows after 1.5 s. The plain loop (ref_loop pipe, 8 queues) between them.
set -u
mkdir -p /tmp/icd && echo /usr/lib/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export GPUTOP_DECODE_KERNELS=$PWD/kernels
D=doc/measurements/h200-2026-12-02-s5
export LD_LIBRARY_PATH=$PWD/build/gpu16/lib
O=$OUT/r4 K=kernels/decode.cl; mkdir -p $O
date -u
for rep in 1 2 3; do
	build/gpu16/bench/ref_loop $K 1:0 f32 100000 10 3 pipe 8
	for g in gpu16 gpu17; do for t in "f32 --profile sampled" "f32 --profile off" "f64 --profile sampled"; do
		n=$g-${t// /}-$rep; n=${n//--profile/-}
		build/$g/gputop-decode --headless -d 1:0 -m pipelined -t $t -D 5 -i 0.5 -f jsonl -o $O/$n.jsonl 2>>$O/stderr.txt
		python3 bench/summarize.py $O/$n.jsonl | sed "s|^[^ ]*|$g -t $t|"
	done; done
done
cd $OUT && tar czf r4.tgz r4 && rm -rf r4
