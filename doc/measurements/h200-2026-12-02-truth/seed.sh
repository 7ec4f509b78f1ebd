#!/usr/bin/env bash
# The original loop again, with its own generator (numpy's legacy normal: MT19937 and the polar
# method), for doc/why-processes-help.md: the seed sweep as that page runs it.
set -u
mkdir -p /tmp/icd && echo /usr/lib/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export GPUTOP_DECODE_KERNELS=$PWD/kernels
G=build/gpu9
if ldd $G/gputop-decode | grep -q "not found"; then export LD_LIBRARY_PATH=$PWD/$G/lib; fi
O=$OUT/seed
mkdir -p $O
{ date -u; nvidia-smi --query-gpu=index,name,driver_version --format=csv; } >$O/host.txt 2>&1
$G/gputop-decode -d 1:0 --sweep 1,2,4,8,16,32 -D 4 -i 0.5 -t f64 -f jsonl -o $O/sweep.jsonl 2>$O/stderr.txt | tee $O/table.txt
$G/bench_core >$O/core.txt 2>&1; grep -i "box-muller\|batch of" $O/core.txt
cd $OUT && tar czf seed.tgz seed && rm -rf seed
