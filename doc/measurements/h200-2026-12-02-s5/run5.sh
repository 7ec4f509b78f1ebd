#!/usr/bin/env bash
# One call on the H200 (build/gpu17): run2.sh's thread sampling again with the shipped worker
# (generation jobs seen done without the pool's lock): does the worker's own thread still
# sleep? f32, --profile off, 5 s each, threads.sh over 2 s from the 2nd second.
set -u
mkdir -p /tmp/icd && echo /usr/lib/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export GPUTOP_DECODE_KERNELS=$PWD/kernels
G=build/gpu17 D=doc/measurements/h200-2026-12-02-s5
export LD_LIBRARY_PATH=$PWD/$G/lib
O=$OUT/r5 K=kernels/decode.cl; mkdir -p $O
date -u
$G/bench/ref_loop $K 1:0 f32 100000 10 5 pipe 8 & p=$!; sleep 2; echo "-- ref_loop pipe 8"; $D/threads.sh $p 2 | head -3; wait $p
i=0
for a in "-m pipelined" "-m pipelined --gen-threads 6" "-m kernel-only --queues 8"; do
	i=$((i+1))
	$G/gputop-decode --headless -d 1:0 -t f32 --profile off $a -D 5 -i 0.5 -f jsonl -o $O/a$i.jsonl 2>>$O/stderr.txt &
	p=$!; sleep 2; w=$(pgrep -P $p | head -1); echo "-- a$i: -t f32 --profile off $a (worker $w)"
	$D/threads.sh $w 2 | head -4; wait $p; python3 bench/summarize.py $O/a$i.jsonl
done
cd $OUT && tar czf r5.tgz r5 && rm -rf r5
