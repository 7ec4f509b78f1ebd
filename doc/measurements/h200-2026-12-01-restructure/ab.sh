#!/usr/bin/env bash
# A/B in one call: the last landed binary before the restructure (c11fe17, build/gpu-old) and
# the restructured one (build/gpu4), the bench table's f64 and f32 arrangements, interleaved.
set -u
mkdir -p /tmp/icd && echo /usr/lib/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export GPUTOP_DECODE_KERNELS=$PWD/kernels
if ldd build/gpu4/gputop-decode | grep -q "not found"; then export LD_LIBRARY_PATH=$PWD/build/gpu4/lib; fi
G=build/gpu4
O=$OUT/ab
mkdir -p $O
{ date -u; nvidia-smi --query-gpu=index,name,driver_version --format=csv; } >$O/host.txt 2>&1
for cfg in 100000:f64 100000:f32; do
	for who in old new; do
		bin=build/gpu4/gputop-decode
		[ $who = old ] && bin=build/gpu-old/gputop-decode
		CONFIGS=$cfg bash bench/gpu_bench.sh $bin $G/ref_loop $G/bench_core 1:0 $O/$who-${cfg/:/-} >/dev/null 2>&1
		echo "== $who $cfg"
		python3 bench/bench_table.py $O/$who-${cfg/:/-} | grep '^| 1' | tee $O/table-$who-${cfg/:/-}.txt
	done
done
cd $OUT && tar czf ab.tgz ab && rm -rf ab
