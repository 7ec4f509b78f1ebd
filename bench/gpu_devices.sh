#!/usr/bin/env bash
# gpu_devices.sh: one device against two with the same total workers, pipelined and kernel-only,
# each step a --sweep of its own (warm-up, then SECONDS of windows averaged), one table at the end.
# Usage: bench/gpu_devices.sh BINARY [ONE [TWO [SECONDS [OUTDIR]]]]
#   ONE: one device (default 1:0); TWO: the pair (default 1:0,1:1); OUTDIR keeps the JSONL
#   sweep logs (default a temporary directory). SIZE (100000) and WORKERS ("2 4 8") pick the
#   batch size and the total worker counts.
set -u
BIN=${1:?usage: gpu_devices.sh BINARY [ONE [TWO [SECONDS [OUTDIR]]]]}
ONE=${2:-1:0} TWO=${3:-1:0,1:1} T=${4:-5} OUT=${5:-$(mktemp -d /tmp/gpu-devices.XXXXXX)}
SIZE=${SIZE:-100000}
mkdir -p "$OUT"
"$BIN" --list-devices >"$OUT/devices.txt" || exit 1

for mode in pipelined kernel-only; do
	for devs in "$ONE" "$TWO"; do
		tag=$mode-${devs//[:,]/_}
		"$BIN" --headless --device "$devs" -m "$mode" -s "$SIZE" -i 0.5 -D "$T" --calibrate \
			--sweep "$(echo ${WORKERS:-2 4 8} | tr ' ' ,)" -f jsonl -o "$OUT/$tag.jsonl" \
			>"$OUT/$tag.txt" 2>>"$OUT/stderr.txt" || echo "gpu_devices: $mode on $devs failed (see $OUT/stderr.txt)" >&2
	done
done

python3 - "$OUT" "$ONE" "$TWO" <<'PY'
import json, os, sys
out, one, two = sys.argv[1:4]
def rows(mode, devs):
    path = os.path.join(out, "%s-%s.jsonl" % (mode, devs.replace(":", "_").replace(",", "_")))
    rows = [json.loads(l) for l in open(path)] if os.path.exists(path) else []
    return [r for r in rows if r.get("kind") != "run"]  # the run header first
def fmt(v, scale=1, prec=1):
    return "n/a" if v is None else "%.*f" % (prec, v * scale)
print("%-11s %5s  %10s %7s  %10s %7s %8s  %s" % ("mode", "procs", "1 dev Mb/s", "busy%", "2 dev Mb/s",
      "busy%", "2/1", "per device (Mbit/s, busy%, workers)"))
for mode in ("pipelined", "kernel-only"):
    a, b = rows(mode, one), rows(mode, two)
    steps = [r for r in a if r["device"] == "all"]
    for s in steps:
        p = s["procs"]
        i = [k for k, r in enumerate(b) if r["device"] == "all" and r["procs"] == p]
        t = b[i[0]] if i else None
        per = []
        if i:
            for r in b[i[0] + 1:]:
                if r["device"] == "all":
                    break
                per.append("%s %s %s%% %d" % (r["device"], fmt(r["mbit_s"]), fmt(r.get("device_busy"), 100),
                                             r["procs"]))
        ratio = t["mbit_s"] / s["mbit_s"] if t and s["mbit_s"] > 0 else None
        print("%-11s %5d  %10s %7s  %10s %7s %8s  %s" % (mode, p, fmt(s["mbit_s"]), fmt(s.get("device_busy"), 100),
              fmt(t and t["mbit_s"]), fmt(t and t.get("device_busy"), 100), fmt(ratio, 1, 2), "; ".join(per)))
print("busy%% of two devices is the mean of theirs; logs in %s" % out)
PY
