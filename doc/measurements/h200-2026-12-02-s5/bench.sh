#!/usr/bin/env bash
# `make bench GPU=1:0` as one call on the H200, with the binary of this commit (build/gpu17:
# gputop-decode, libgputop-observe.so, and bench/ with ref_loop, seed_replica, bench_core).
set -u
mkdir -p /tmp/icd && echo /usr/lib/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export GPUTOP_DECODE_KERNELS=$PWD/kernels
G=build/gpu17
if ldd $G/gputop-decode | grep -q "not found"; then export LD_LIBRARY_PATH=$PWD/$G/lib; fi
O=$OUT/bench
python3 -c 'import numpy; print("numpy", numpy.__version__)' 2>&1
REPS=2 bash bench/gpu_bench.sh $G/gputop-decode $G/bench 1:0 $O 5
python3 bench/bench_table.py $O | tee $OUT/table.md
cd $OUT && tar czf bench.tgz bench && rm -rf bench
