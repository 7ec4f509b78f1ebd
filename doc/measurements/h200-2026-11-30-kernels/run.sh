#!/usr/bin/env bash
# One H200: the three example kernels, processes against queues, kernel-only and pipelined.
set -u
G=build/gpu2
mkdir -p /tmp/icd && echo /usr/lib/libnvidia-opencl.so.1 > /tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export GPUTOP_DECODE_KERNELS=$PWD/kernels
if ldd $G/gputop-decode | grep -q "libmicrohttpd.*not found"; then export LD_LIBRARY_PATH=$PWD/$G/lib; fi
$G/gputop-decode --list-devices
mkdir -p /tmp/k
# gpu_kernels.sh finds the examples next to itself: ../kernels/examples
mkdir -p /tmp/b/bench && cp $G/gpu_kernels.sh /tmp/b/bench/ && cp -r $G/kernels /tmp/b/
bash /tmp/b/bench/gpu_kernels.sh $PWD/$G/gputop-decode 1:0 /tmp/k 3 > /tmp/k/table.txt 2>/tmp/k/table.err
cat /tmp/k/table.txt; tail -5 /tmp/k/table.err; cat /tmp/k/env.txt
tar czf $OUT/kernels.tgz -C /tmp k
