#!/usr/bin/env bash
# Where device_busy falls below rate / ceiling (pipelined f64, 8 lanes): traces of sampled and
# full runs on the H200, each round's union per batch against the estimates (rounds.py).
set -u
mkdir -p /tmp/icd && echo /usr/lib/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export GPUTOP_DECODE_KERNELS=$PWD/kernels
G=build/gpu11
if ldd $G/gputop-decode | grep -q "not found"; then export LD_LIBRARY_PATH=$PWD/$G/lib; fi
O=/tmp/rounds; mkdir -p $O
R=doc/measurements/h200-2026-12-02-host-path/rounds.py
t() { local n=$1; shift; $G/gputop-decode --headless -d 1:0 -t f64 -i 0.5 -f jsonl -o $O/$n.jsonl --trace $O/$n.json --trace-limit 2000000 "$@" 2>>$O/stderr.txt; python3 $R $O/$n.json; python3 bench/summarize.py --from 1 $O/$n.jsonl; }
$G/gputop-decode --headless -d 1:0 -t f64 -m kernel-only -n 0 -D 0.5 --calibrate -f jsonl -o $O/ceil.jsonl 2>>$O/stderr.txt
grep -o '"ceiling":[0-9.]*' $O/ceil.jsonl | tail -1
t pipe-sampled -m pipelined -D 3
t pipe-sampled-se64 -m pipelined -D 3 --sample-every 64
t konly8-sampled -m kernel-only --queues 8 -D 3
t pipe-full -m pipelined -D 2 --profile full
