#!/usr/bin/env bash
# The copy's duration, not its queueing, bounds an estimate's start (after check1); a probe
# build (gputop-decode-dbg: the same, printing each round's figures to /tmp/rounds.PID) beside it.
set -u
mkdir -p /tmp/icd && echo /usr/lib/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export GPUTOP_DECODE_KERNELS=$PWD/kernels
G=${G:-build/gpu6}
if ldd $G/gputop-decode | grep -q "not found"; then export LD_LIBRARY_PATH=$PWD/$G/lib; fi
O=$OUT/check2
mkdir -p $O
{ date -u; nvidia-smi --query-gpu=index,name,driver_version --format=csv; } >$O/host.txt 2>&1
run() { local bin=$1 name=$2; shift 2; $G/$bin --headless -d 1:0 -i 0.5 -D 6 --calibrate -f jsonl -o $O/$name.jsonl "$@" 2>>$O/stderr.txt; }
rm -f /tmp/rounds.*
run gputop-decode-dbg p8f64-dbg -m pipelined --queues 8 --gen-threads 12 -t f64
cat /tmp/rounds.* >$O/rounds-p8f64.txt; rm -f /tmp/rounds.*
run gputop-decode-dbg k8f32-dbg -m kernel-only --queues 8 -t f32
cat /tmp/rounds.* >$O/rounds-k8f32.txt; rm -f /tmp/rounds.*
for cfg in "p8f64:-m pipelined --queues 8 --gen-threads 12 -t f64" "pdf32:-m pipelined -t f32"; do
	tag=${cfg%%:*} args=${cfg#*:}
	run gputop-decode $tag-off $args --profile off
	run gputop-decode $tag-sampled $args
done
python3 bench/summarize.py --from 3 $O
tail -n 4 $O/rounds-*.txt
cd $OUT && tar czf check2.tgz check2 && rm -rf check2
