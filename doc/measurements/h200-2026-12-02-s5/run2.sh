#!/usr/bin/env bash
# One call on the H200 (build/gpu16): where the f32 pipelined worker's host thread spends a
# batch. Each arrangement runs 5 s under --profile off; from its 2nd second, threads.sh samples
# the worker's threads for 2 s (the worker's own thread is marked *), then summarize.py gives
# the rate. The plain loop (ref_loop pipe) is sampled the same way beside it.
set -u
mkdir -p /tmp/icd && echo /usr/lib/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export GPUTOP_DECODE_KERNELS=$PWD/kernels
G=build/gpu16 D=doc/measurements/h200-2026-12-02-s5
if ldd $G/gputop-decode | grep -q "not found"; then export LD_LIBRARY_PATH=$PWD/$G/lib; fi
O=$OUT/r2 K=kernels/decode.cl; mkdir -p $O
date -u
$G/bench/ref_loop $K 1:0 f32 100000 10 5 pipe 8 & p=$!; sleep 2; echo "-- ref_loop pipe 8"; $D/threads.sh $p 2; wait $p
i=0
for a in "--queues 8" "--queues 8 --gen-threads 3" "--queues 4 --gen-threads 3" "--queues 8 --gen-threads 6" "--queues 4" "--queues 8 --profile sampled"; do
	i=$((i+1))
	$G/gputop-decode --headless -d 1:0 -m pipelined -t f32 --profile off $a -D 5 -i 0.5 -f jsonl -o $O/a$i.jsonl 2>>$O/stderr.txt &
	p=$!; sleep 2; w=$(pgrep -P $p | head -1); echo "-- a$i: -m pipelined -t f32 --profile off $a (worker $w)"
	$D/threads.sh $w 2; wait $p; python3 bench/summarize.py $O/a$i.jsonl
done
cd $OUT && tar czf r2.tgz r2 && rm -rf r2
