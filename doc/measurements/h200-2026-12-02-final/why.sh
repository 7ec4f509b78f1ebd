#!/usr/bin/env bash
# doc/why-processes-help.md's tables, measured again with the binary of this commit
# (build/gpu13): the seed's loop with its own generator (box-muller) beside the independent
# replica, the device ceiling, processes against queues, the other arrangements.
set -u
mkdir -p /tmp/icd && echo /usr/lib/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export GPUTOP_DECODE_KERNELS=$PWD/kernels
G=build/gpu13
if ldd $G/gputop-decode | grep -q "not found"; then export LD_LIBRARY_PATH=$PWD/$G/lib; fi
O=$OUT/why; mkdir -p $O
K=kernels/decode.cl T=4
s() { local n=$1; shift; echo "== $n: gputop-decode $*"; $G/gputop-decode -d 1:0 "$@" -f jsonl -o $O/$n.jsonl 2>>$O/stderr.txt | tee $O/$n.txt; }
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; } 2>&1
s seed-f64 --sweep 1,2,4,8,16,32 -D $T -i 0.5 -t f64 --calibrate
for n in 1 2 4 8 16 32; do timeout 120 $G/bench/seed_replica $K 1:0 f64 100000 10 $T $n; done
s konly-f64 -m kernel-only --sweep 1x1,1x2,1x4,1x8,4x1,16x1 -D $T -i 0.5 -t f64 --calibrate
s pipe-f64 -m pipelined --sweep 1x1,1x4,1x8,4x4 -D $T -i 0.5 -t f64 --calibrate
s seed-f32 --sweep 1,2,4,8,16 -D $T -i 0.5 -t f32 --calibrate
s seed-1M --sweep 1,4,16 -D $T -i 0.5 -s 1000000
# 16 seed workers: the tool's device busy beside nvidia-smi's utilisation.
$G/gputop-decode --headless -d 1:0 -n 16 -D 9 -i 1 -f jsonl -o $O/dmon16.jsonl 2>>$O/stderr.txt &
pid=$!; sleep 3; timeout 5 nvidia-smi dmon -s u -d 1 >$O/dmon16.txt 2>&1; wait $pid
cat $O/dmon16.txt; python3 bench/summarize.py --from 3 $O/dmon16.jsonl
cd $OUT && tar czf why.tgz why && rm -rf why
