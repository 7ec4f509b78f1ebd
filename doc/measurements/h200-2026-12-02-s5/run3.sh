#!/usr/bin/env bash
# One call on the H200 (build/gpu16): does the f32 pipelined worker's own thread lose its core
# to the generation threads? Within one run: 1.5-4 s as started, 4-7 s with the worker's own
# thread on one physical core (cpu0 and its siblings) and every other thread of the worker off
# it, 7-10 s as started again. The same for the plain loop (ref_loop pipe) as a control.
set -u
mkdir -p /tmp/icd && echo /usr/lib/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export GPUTOP_DECODE_KERNELS=$PWD/kernels
G=build/gpu16 D=doc/measurements/h200-2026-12-02-s5
if ldd $G/gputop-decode | grep -q "not found"; then export LD_LIBRARY_PATH=$PWD/$G/lib; fi
O=$OUT/r3 K=kernels/decode.cl; mkdir -p $O
date -u; lscpu | grep -E "^(Model name|Thread|Core|Socket|NUMA node)"
sib=$(cat /sys/devices/system/cpu/cpu0/topology/thread_siblings_list); all=0-$(($(nproc) - 1))
rest=$(python3 -c "
import sys
def cpus(s):
    out = set()
    for p in s.split(','):
        a, _, b = p.partition('-'); out |= set(range(int(a), int(b or a) + 1))
    return out
print(','.join(map(str, sorted(cpus('$all') - cpus('$sib')))))")
echo "worker's thread on $sib, the others on $rest"
pin() { local w=$1; for t in /proc/$w/task/*; do t=${t##*/}; if [ $t = $w ]; then taskset -p -c $sib $t; else taskset -p -c $rest $t; fi; done >/dev/null; }
unpin() { for t in /proc/$1/task/*; do taskset -p -c $all ${t##*/}; done >/dev/null; }
i=0
for a in "--profile off" "--profile sampled" "--profile off --gen-threads 6" "--profile sampled --queues 4"; do
	i=$((i+1))
	$G/gputop-decode --headless -d 1:0 -m pipelined -t f32 $a -D 10 -i 0.5 -f jsonl -o $O/p$i.jsonl 2>>$O/stderr.txt &
	p=$!; sleep 4; w=$(pgrep -P $p | head -1); pin $w; sleep 3; unpin $w; wait $p
	echo "p$i: -m pipelined -t f32 $a: $(python3 $D/window.py $O/p$i.jsonl 1.5 4 4.5 7 7.5 10.1)"
done
for q in 8 4; do
	$G/bench/ref_loop $K 1:0 f32 100000 10 3 pipe $q
	taskset -c $sib $G/bench/ref_loop $K 1:0 f32 100000 10 3 pipe $q | sed 's/$/ (on one core)/'
done
cd $OUT && tar czf r3.tgz r3 && rm -rf r3
