#!/usr/bin/env bash
# test_pipeline.sh: the pipelined worker with generation threads (--gen-threads): every batch
# still checked against the CPU reference, generation shown per thread in the log and the trace,
# and the option refused where it cannot apply. States and counts only.
# tier: fast, about 10 s
. "$(dirname "$0")/lib.sh"

"$BIN" --headless -m seed --gen-threads 2 -D 1 >"$TMP/seed.out" 2>"$TMP/seed.err"
ok $(($? == 2 ? 0 : 1)) "--gen-threads in seed mode: exit 2"
check "  naming --gen-threads, on one line" eval '[ "$(wc -l <"$TMP/seed.err")" -eq 1 ] && grep -q -- "--gen-threads" "$TMP/seed.err"'

device_from_here

SMALL=(-s 20000 -l 2 -i 0.5)
# Each run goes on until its worker has decoded 12 batches (bounded), then gets SIGINT.
for t in 0 2; do
	"$BIN" --headless -m pipelined --gen-threads $t -n 1 "${SMALL[@]}" --verify -f jsonl \
		-o "$TMP/g$t.jsonl" --trace "$TMP/g$t.trace" 2>"$TMP/g$t.err" &
	stop_when 120 $! batches_reach 12 "$TMP/g$t.jsonl"
	ok $RC "--gen-threads $t --verify runs"
	python3 - "$TMP/g$t.jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
w = [r for r in rows if r["kind"] == "worker"]
assert w and w[-1]["batches"] > 0 and not any(r["state"] == "failed" for r in w), w[-1:]
assert all(r["gen_busy"] > 0 for r in w[1:] if r["window_batches"] > 0), w
PY
	ok $? "--gen-threads $t: batches pass --verify and gen_busy is measured"
done
python3 - "$TMP/g2.trace" "$TMP/g0.trace" <<'PY'
import json, sys
threaded = json.load(open(sys.argv[1]))
names = {e["args"]["name"] for e in threaded if e.get("name") == "thread_name"}
assert {"gen 1", "gen 2"} <= names, names
tids = {e["tid"] for e in threaded if e.get("name") == "generate"}
assert tids and tids <= {11, 12}, tids
inline = json.load(open(sys.argv[2]))
assert {e["tid"] for e in inline if e.get("name") == "generate"} == {1}
PY
ok $? "the trace puts each generation thread on a track of its own (gen 1, gen 2), inline on host"

# Batches take the lanes in turn, whatever slot their inputs were generated in (3 lanes, 2
# threads: 8 slots), so every lane keeps two in flight; every batch is profiled, so each has
# its kernels in the trace, with its lane (from 1).
"$BIN" --headless -m pipelined --gen-threads 2 --queues 3 --profile full -n 1 "${SMALL[@]}" \
	-o "$TMP/turn.csv" --trace "$TMP/turn.trace" 2>/dev/null &
stop_when 120 $! batches_reach 12 "$TMP/turn.csv"
python3 - "$TMP/turn.trace" <<'PY'
import json, sys
k = [e["args"] for e in json.load(open(sys.argv[1])) if e.get("name") == "kernel"]
assert len({a["batch"] for a in k}) >= 9, len(k)
wrong = [(a["batch"], a["lane"]) for a in k if a["lane"] != a["batch"] % 3 + 1]
assert not wrong, wrong[:8]
PY
ok $? "pipelined batches take the lanes in turn (batch n on lane n mod 3)"

# The run header states the threads each worker got, resolved (a share of the cores), never a
# sentinel; a seed run has none.
"$BIN" --headless -m pipelined -n 1 -D 0.5 "${SMALL[@]}" -f jsonl -o "$TMP/share.jsonl" 2>/dev/null
"$BIN" --headless -m seed -n 1 -D 0.5 "${SMALL[@]}" -f jsonl -o "$TMP/noshare.jsonl" 2>/dev/null
python3 - "$TMP/share.jsonl" "$TMP/noshare.jsonl" "$(nproc)" <<'PY'
import json, sys
def gen(path):
    return json.loads(open(path).readline())["run"]["options"]["gen-threads"]
share, cores = gen(sys.argv[1]), int(sys.argv[3])
assert isinstance(share, int) and 1 <= share <= max(1, min(16, cores)), share
assert gen(sys.argv[2]) is None, gen(sys.argv[2])
PY
ok $? "the run header's gen-threads: the resolved share of the cores when pipelined, null in seed mode"

"$BIN" --headless -m pipelined --gen-threads 3 -n 2 -D 1 "${SMALL[@]}" -o "$TMP/last.csv" 2>/dev/null &
pid=$!
wait $pid
check "a run with generation threads leaves no segment and no worker" eval '[ "$(segments_of $pid)" -eq 0 ] && [ "$(children_of $pid)" -eq 0 ]'
