#!/usr/bin/env bash
# The cost of looking before the recorder's rework (binary build/gpu31, the library of
# 2026-12-03): tests/fixtures/cl_cost, 200 batches of 1000 empty launches, alone (plain, with a
# profiling queue, with an event on every launch) and observed under --profile off, sampled and
# full, five interleaved rounds; then what NVIDIA's runtime tells of a command under way.
set -u
mkdir -p /tmp/icd && echo /usr/lib/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export GPUTOP_DECODE_KERNELS=$PWD/kernels
G=build/gpu31
if ldd $G/gputop-decode | grep -q "not found"; then export LD_LIBRARY_PATH=$PWD/$G/lib; fi
O=$OUT/before; mkdir -p $O
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; } 2>&1
D=$($G/gputop-decode --list-devices 2>/dev/null | awk '$2=="GPU"{print $1; exit}')
echo "device $D"
C="$G/fixtures/cl_cost launch 200 1000"
for r in 1 2 3 4 5; do
	for v in plain prof events; do
		a=; [ $v != plain ] && a=$v
		echo "r$r alone-$v $(timeout 60 $C $a 2>&1 | tail -1)"
	done
	for p in off sampled full; do
		timeout 90 $G/gputop-decode --headless -d $D -i 0.5 --profile $p -f jsonl -o $O/r$r-$p.jsonl -- $C >$O/r$r-$p.out 2>$O/r$r-$p.err
		echo "r$r observed-$p rc=$? $(tail -1 $O/r$r-$p.out)"
	done
done
for i in 1 2; do echo "status: $(timeout 30 $G/fixtures/cl_cost status 500 2>&1 | tail -1)"; done
date -u
cd $OUT && tar czf before.tgz before && rm -rf before
