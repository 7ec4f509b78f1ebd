#!/usr/bin/env bash
# `make bench GPU=1:0` as one call on the H200: every arrangement under sampled, off and full,
# with the binary of this commit (build/gpu8), the plain reference loop and bench_core.
set -u
mkdir -p /tmp/icd && echo /usr/lib/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export GPUTOP_DECODE_KERNELS=$PWD/kernels
G=build/gpu8
if ldd $G/gputop-decode | grep -q "not found"; then export LD_LIBRARY_PATH=$PWD/$G/lib; fi
O=$OUT/bench
REPS=2 bash bench/gpu_bench.sh $G/gputop-decode $G/ref_loop $G/bench_core 1:0 $O 5
python3 bench/bench_table.py $O | tee $OUT/table.md
cd $OUT && tar czf bench.tgz bench && rm -rf bench
