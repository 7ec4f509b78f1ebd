#!/usr/bin/env bash
# What the session's last 90 s of device time allowed (why.sh is the full plan): the reports of
# a seed sweep and a pipelined sweep (2 s steps), and 1 and 4 copies of an unmodified program
# (bench/seed_replica, one copy each, 4 s) observed through LD_PRELOAD beside the same unobserved.
set -u
mkdir -p /tmp/icd && echo /usr/lib/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export GPUTOP_DECODE_KERNELS=$PWD/kernels
G=build/gpu15
if ldd $G/gputop-decode | grep -q "not found"; then export LD_LIBRARY_PATH=$PWD/$G/lib; fi
O=$OUT K=kernels/decode.cl
s() { local n=$1; shift; echo "== $n: gputop-decode $*"; $G/gputop-decode -d 1:0 "$@" -f jsonl -o $O/$n.jsonl 2>>$O/stderr.txt | tee $O/$n.txt; }
s seed-f64 --sweep 1,2,4,8,16 -D 2 -i 0.5 -t f64 --calibrate --report $O/seed-report.html
s pipe-f64 -m pipelined --sweep 1x1,1x4,1x8 -D 2 -i 0.5 -t f64 --calibrate --report $O/pipe-report.html
for n in 1 4; do
	echo "-- unobserved: seed_replica, $n copies"
	timeout 20 $G/bench/seed_replica $K 1:0 f64 100000 10 4 $n
	echo "-- observed through LD_PRELOAD: $n copies of seed_replica (1 copy each)"
	$G/gputop-decode --headless -d 1:0 -n $n --observe-via preload -i 0.5 -f jsonl -o $O/obs-$n.jsonl \
		--trace $O/obs-$n.json -- $G/bench/seed_replica $K 1:0 f64 100000 10 4 1 2>$O/obs-$n.err
	grep -o "mbit_s=[0-9.]*" $O/obs-$n.err | awk -F= '{s+=$2} END {printf "copies print %.1f Mbit/s in all\n", s}'
done
