#!/usr/bin/env bash
# run.sh: `make bench`: the core micro-benchmarks (ratios within one run), then, when asked
# with FULL=1, the dashboard's own cost (bench/dashboard_cost.sh). GPU figures come from
# bench/gpu.sh on the GPU machine (doc/why-processes-help.md).
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build/plain} # where `make bench` built bench_core
# The machine the figures belong to: rates in M/s travel only with it, ratios travel further.
echo "machine: $(nproc) cores, $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1), $(date -u +%Y-%m-%d)"
"$BUILD/bench/bench_core"
for p in off sampled full; do # what observing adds to an enqueue call, on this host alone
	"$BUILD/bench/observe_call" $p
done
if [ "${FULL:-0}" = 1 ] && [ -x bench/dashboard_cost.sh ]; then
	bench/dashboard_cost.sh
fi
