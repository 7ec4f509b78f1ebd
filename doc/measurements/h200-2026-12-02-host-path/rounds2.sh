#!/usr/bin/env bash
# The bench's pipelined f64 arrangement (defaults, 5 s at 0.5 s) with a trace, beside the same
# without one, twice: where the union of the estimates leaves gaps (rounds.py).
set -u
mkdir -p /tmp/icd && echo /usr/lib/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export GPUTOP_DECODE_KERNELS=$PWD/kernels
G=${G:-build/gpu11}
if ldd $G/gputop-decode | grep -q "not found"; then export LD_LIBRARY_PATH=$PWD/$G/lib; fi
O=/tmp/rounds2; mkdir -p $O
R=doc/measurements/h200-2026-12-02-host-path/rounds.py
$G/gputop-decode --headless -d 1:0 -t f64 -m kernel-only -n 0 -D 0.5 --calibrate -f jsonl -o $O/ceil.jsonl 2>>$O/stderr.txt
grep -o '"ceiling":[0-9.]*' $O/ceil.jsonl | tail -1
for i in 1 2; do
	$G/gputop-decode --headless -d 1:0 -t f64 -m pipelined -i 0.5 -D 5 -f jsonl -o $O/plain$i.jsonl 2>>$O/stderr.txt
	python3 bench/summarize.py --from 2.5 $O/plain$i.jsonl
	$G/gputop-decode --headless -d 1:0 -t f64 -m pipelined -i 0.5 -D 5 -f jsonl -o $O/tr$i.jsonl --trace $O/tr$i.json --trace-limit 5000000 2>>$O/stderr.txt
	python3 bench/summarize.py --from 2.5 $O/tr$i.jsonl
	python3 $R $O/tr$i.json | grep -v "round n"
done
