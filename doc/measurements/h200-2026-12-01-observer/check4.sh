#!/usr/bin/env bash
# After check3: no scaling by completion times; an estimate with more work than time covers it whole.
set -u
mkdir -p /tmp/icd && echo /usr/lib/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export GPUTOP_DECODE_KERNELS=$PWD/kernels
G=${G:-build/gpu7}
if ldd $G/gputop-decode | grep -q "not found"; then export LD_LIBRARY_PATH=$PWD/$G/lib; fi
O=$OUT/check4
mkdir -p $O
{ date -u; nvidia-smi --query-gpu=index,name,driver_version --format=csv; } >$O/host.txt 2>&1
run() { local name=$1; shift; $G/gputop-decode --headless -d 1:0 -i 0.5 -D 6 --calibrate -f jsonl -o $O/$name.jsonl "$@" 2>>$O/stderr.txt; }
run k8f32-sampled -m kernel-only --queues 8 -t f32
run p8f64-sampled -m pipelined --queues 8 --gen-threads 12 -t f64
run p8f32-sampled -m pipelined --queues 8 --gen-threads 12 -t f32
run seed1f32-sampled -m seed -t f32
run k1f64-sampled -m kernel-only --queues 1 -t f64
run k1f64-full -m kernel-only --queues 1 -t f64 --profile full
python3 bench/summarize.py --from 3 $O
cd $OUT && tar czf check4.tgz check4 && rm -rf check4
