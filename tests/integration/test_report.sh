#!/usr/bin/env bash
# test_report.sh: --report writes a self-contained HTML page at the end of a sweep, of a run and
# of an observed program's run: nothing fetched (no script, no link, no URL but its own data:
# links), well formed, one point per sweep step on the scaling curve, the prediction beside it,
# the breakdown and the timeline drawn, no driver's utilization (no vendor library answers on
# PoCL); every chart passes check_svg.py (every point inside its axes, nice ticks, a swatch per
# key, a key per series), the ceiling keyed only where calibrated, the timeline on a time axis,
# the diagnosis and the breakdown quoting one device busy, the options that applied as a table
# (an observed run's without the decode kernel's); check_svg.py itself fails on a point moved
# off the axes, a swatch taken away, odd ticks or a key without its series. Headless Chromium
# renders the pages at 1280x900 and 390x844 and prints one to PDF, with no console message (a
# page that does log one shows the capture works); REPORT_PNG_DIR=doc keeps the sweep's renders
# as doc/report-1280x900.png and doc/report-390x844.png.
# tier: device, about 60 s
. "$(dirname "$0")/lib.sh"
SMALL=(-s 20000 -l 2 -i 0.25)

"$BIN" --sweep 1,2 -D 1 "${SMALL[@]}" --calibrate --report "$TMP/sweep.html" >"$TMP/table" 2>"$TMP/err"
rc=$?
ok $rc "a sweep with --report exits 0"
[ $rc -eq 0 ] || diag "$TMP/err"
check "the page is written" test -s "$TMP/sweep.html"
# (until both workers have rates in 3 windows each, bounded; then SIGINT)
"$BIN" --headless -n 2 -D 300 "${SMALL[@]}" -o "$TMP/run.csv" --report "$TMP/run.html" 2>"$TMP/run.err" &
stop_when 120 $! measured 6 "$TMP/run.csv"
ok $RC "a headless run with --report exits 0"
[ "$RC" -eq 0 ] || diag "$TMP/run.err"
# An observed program of the question's structure (tests/fixtures/seed_app.py), not calibrated;
# without PyOpenCL's own cache, whose lock another process may hold for a minute.
PYOPENCL_NO_CACHE=1 "$BIN" --headless -n 1 -i 0.25 -o "$TMP/obs.log" --report "$TMP/obs.html" -- \
	/usr/bin/python3 "$ROOT/tests/fixtures/seed_app.py" 1 150 20000 >"$TMP/obs.out" 2>&1
rc=$?
ok $rc "an observed run with --report exits 0"
[ $rc -eq 0 ] || diag "$TMP/obs.out"

python3 - "$TMP/sweep.html" "$TMP/run.html" "$TMP/table" "$TMP/obs.html" <<'PY'
import re, sys
from html.parser import HTMLParser

VOID = {"meta", "link", "br", "img", "input", "hr", "rect", "circle", "line", "polyline", "path"}

class Check(HTMLParser):
    """Well formed: every element closed in order (void ones and SVG shapes aside)."""
    def __init__(self):
        super().__init__()
        self.stack, self.count, self.errors = [], {}, []
    def handle_starttag(self, tag, attrs):
        self.count[(tag, dict(attrs).get("class"))] = self.count.get((tag, dict(attrs).get("class")), 0) + 1
        self.count[tag] = self.count.get(tag, 0) + 1
        if tag not in VOID:
            self.stack.append(tag)
    def handle_startendtag(self, tag, attrs):
        self.count[(tag, dict(attrs).get("class"))] = self.count.get((tag, dict(attrs).get("class")), 0) + 1
        self.count[tag] = self.count.get(tag, 0) + 1
    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack.pop() != tag:
            self.errors.append("unexpected </%s>" % tag)

for path in (sys.argv[1], sys.argv[2], sys.argv[4]):
    text = open(path, encoding="utf-8").read()
    assert text.startswith("<!DOCTYPE html>\n<html lang=\"en\">"), path
    # Self-contained: no script, no external resource, no URL but its own data: links.
    for bad in ("<script", "<link", "<iframe", "@import", "url(", "http:", "https:", " src="):
        assert bad not in text, (path, bad)
    assert all(h.startswith("data:text/csv") for h in re.findall(r'href="([^"]*)"', text)), path
    c = Check()
    c.feed(text)
    assert not c.errors and not c.stack, (path, c.errors, c.stack)
    head = text[text.index("<head>"):text.index("</head>")]
    assert head.count("<title>") == 1 and c.count.get("svg", 0) >= 3, (path, c.count)
    assert c.count.get(("a", "data"), 0) >= 3, (path, "a data link beside each chart")
    assert re.search(r'<p class="diag">[^<]*device \d+% busy', text), (path, "the diagnosis in words")
    # No vendor library answers here (PoCL): no line of the driver's beside device busy.
    assert 'class="driver"' not in text and "driver's utilization" not in text, (path, "no driver line")
    if "sweep" in path:
        # Calibrated: the ceiling in words after the diagnosis, with its figure at 4x the size
        # where the calibration measured one (the sweep table's note says whether it did).
        larger = re.search(r"^ceiling: [0-9.]+ Mbit/s at this size(.*)$", open(sys.argv[3]).read(), re.M)
        assert larger, (path, "the table's ceiling note")
        words = r"\. The calibrated ceiling: [0-9.]+ Mbit/s" + re.escape(larger.group(1))
        assert re.search(r'<p class="diag">[^<]*' + words + r"\.</p>", text), (path, words)
        assert c.count.get(("circle", "measured point")) == 2, (path, "one point per step", c.count)
        assert c.count.get(("polyline", "predicted")) == 1 and c.count.get(("polyline", "ideal")) == 1, path
        assert ">1x1<" in text and ">2x1<" in text, path
    else:
        assert c.count.get(("polyline", "measured")) == 1, (path, "the rate over time")
    kernels = c.count.get(("rect", "kernel"), 0) + c.count.get(("rect", "kernel est"), 0)
    assert kernels > 0, (path, "the timeline's kernels")
PY
ok $? "the three pages: self-contained, well formed, the diagnosis, a data link per chart, one point per step, the timeline, no driver line"

# The charts: every point inside its axes, nice ticks, a swatch per key, a key per series.
python3 "$ROOT/tests/integration/check_svg.py" "$TMP/sweep.html" "$TMP/run.html" "$TMP/obs.html" >"$TMP/keys" 2>"$TMP/svg.err"
ok $? "check_svg.py: every chart of the three pages holds"
diag "$TMP/svg.err"
check "  the calibrated sweep keys its ceiling" grep -q "sweep.html: scaling curve: keys=.*|calibrated ceiling" "$TMP/keys"
check "  the runs without --calibrate key none" eval '! grep -E "(run|obs).html: .*ceiling" "$TMP/keys"'
check "  each page has its timeline with keys" test "$(grep -c ": timeline: keys=kernel" "$TMP/keys")" -eq 3
# check_svg.py fails on each fault the report once had.
python3 - "$TMP/sweep.html" "$TMP" "$TMP/run.html" <<'PY'
import re, sys
t, uncalibrated = open(sys.argv[1]).read(), open(sys.argv[3]).read()
odd = ["0.9395", "0.7046"]  # the ticks the issue found, by pop()
faults = {
    "off": re.sub(r'(<circle class="measured point" cx="[0-9.]+" cy=")[0-9.]+', r"\g<1>2.0", t, count=1),
    "noswatch": re.sub(r'<line class="sw [^"]*"[^>]*/>', "", t, count=1),
    "ticks": re.sub(r'(<text class="yt"[^>]*>)[^<]*', lambda m: m.group(1) + odd.pop(), t, count=2),
    "turned": t.replace('class="al" x=', 'class="al" transform="rotate(-90 12 130)" x=', 1),
    "stray": uncalibrated.replace('<g class="legend">\n', '<g class="legend">\n<g class="key"><rect class="sw ceiling"'
                       ' x="1" y="1" width="9" height="9"/><text>ceiling</text></g>', 1),
}
for name, page in faults.items():
    assert page not in (t, uncalibrated), name
    open("%s/fault-%s.html" % (sys.argv[2], name), "w").write(page)
PY
for f in off noswatch ticks turned stray; do
	python3 "$ROOT/tests/integration/check_svg.py" "$TMP/fault-$f.html" >/dev/null 2>&1
	ok $(($? == 1 ? 0 : 1)) "check_svg.py fails on a page with fault '$f'"
done

# One device busy figure on each page: the diagnosis quotes one, the breakdown's bar for the
# same step (the last) or the run has it, and the options that applied as a table.
python3 - "$TMP/sweep.html" "$TMP/run.html" "$TMP/obs.html" <<'PY'
import csv, html, io, re, sys, urllib.parse
for path in sys.argv[1:]:
    text = open(path, encoding="utf-8").read()
    diag = re.search(r'<p class="diag">([^<]*)</p>', text).group(1)
    figures = {int(a or b) for a, b in re.findall(r"(\d+)% (?:device )?busy|busy (\d+)%", diag)}
    assert len(figures) == 1, (path, "one busy figure in the diagnosis", diag)
    busy = figures.pop()
    link = re.search(r'download="breakdown.csv" href="data:text/csv;charset=utf-8,([^"]*)"', text).group(1)
    rows = list(csv.DictReader(io.StringIO(urllib.parse.unquote(link))))
    assert abs(100 * float(rows[-1]["device_busy"]) - busy) <= 0.51, (path, rows[-1], busy)
    titles = re.findall(r"<title>([^<]*): device busy (\d+)%</title>", text)
    assert titles and titles[-1] == (rows[-1]["step"], str(busy)), (path, titles, busy)
    table = re.search(r'<table class="run">(.*?)</table>', text, re.S).group(1)
    opts = dict((html.unescape(k), html.unescape(v)) for k, v in
                re.findall(r'<th scope="row">([^<]*)</th><td>(?:<code>)?([^<]*)', table))
    assert "{&quot;" not in text and "null" not in opts.values(), (path, "no raw JSON")
    if "obs" in path:
        assert "seed_app.py" in opts["program"] and opts["--procs"] == "1", (path, opts)
        for decode in ("--size", "--launches", "--dtype", "--mode", "--queues", "--generator", "--calibrate"):
            assert decode not in opts, (path, decode, "applies to the decode kernel only")
    else:
        assert "program" not in opts and "--observe-via" not in opts, (path, opts)
        assert opts["--size"] == "20000" and opts["--launches"] == "2", (path, opts)
    if "sweep" in path:
        assert opts["--sweep"] == "1,2" and opts["--calibrate"] == "yes", (path, opts)
        # Each line drawn where its figure is, none cut at the top: the polylines' y against
        # the data link's figures on the axis from 0 to the top tick.
        chart = re.search(r'<svg[^>]*aria-label="scaling curve">.*?</svg>', text, re.S).group(0)
        fr = re.search(r'class="frame" x="[0-9.]+" y="([0-9.]+)" width="[0-9.]+" height="([0-9.]+)"', chart)
        top, height = float(fr.group(1)), float(fr.group(2))
        ymax = float(re.findall(r'class="yt"[^>]*>([^<]*)<', chart)[-1])
        link = re.search(r'download="scaling.csv" href="data:text/csv;charset=utf-8,([^"]*)"', text).group(1)
        steps = list(csv.DictReader(io.StringIO(urllib.parse.unquote(link))))
        for series in ("ideal", "predicted", "Mbit/s"):
            cls = "measured" if series == "Mbit/s" else series
            pts = re.search(r'<polyline class="%s" points="([^"]*)"' % cls, chart).group(1).split()
            want = [top + height * (1 - float(r[series]) / ymax) for r in steps]
            got = [float(p.split(",")[1]) for p in pts]
            assert all(abs(a - b) < 0.2 for a, b in zip(got, want)) and len(got) == len(want), (path, series, got, want)
    # The timeline on a time axis: two ticks or more under it.
    timeline = re.search(r'<svg[^>]*aria-label="timeline">.*?</svg>', text, re.S).group(0)
    assert len(re.findall(r'class="xt"', timeline)) >= 2 and "milliseconds" in timeline, path
PY
ok $? "each page: one device busy figure in the diagnosis and its bar, the options that applied as a table, a time axis under the timeline, each scaling line where its figures are"

# Headless Chromium: the capture of console messages is shown to work on a page that logs one.
CHROME=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROME" ]; then
	ok 1 "chromium is installed (tools/deps.sh installs it)"
else
	render() { # render PAGE OUT.png WIDTH,HEIGHT: stderr has the console lines
		timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --hide-scrollbars \
			--user-data-dir="$TMP/chrome" --enable-logging=stderr --v=1 --window-size="$3" \
			--screenshot="$2" "file://$1" 2>&1 | grep ':CONSOLE' || true
	}
	printf '<!DOCTYPE html><html lang="en"><head><title>x</title><script>console.error("boom")</script></head><body></body></html>' >"$TMP/logs.html"
	check "a page that logs to the console is seen to" eval '[ -n "$(render "$TMP/logs.html" "$TMP/logs.png" 400,300)" ]'
	for page in sweep obs; do
		for size in 1280,900 390,844; do
			msgs=$(render "$TMP/$page.html" "$TMP/$page-$size.png" $size)
			check "Chromium renders the $page page at $size, no console message" \
				eval '[ -z "$msgs" ] && [ "$(head -c 8 "$TMP/'$page-$size'.png" | od -An -tx1 | tr -d " \n")" = 89504e470d0a1a0a ]'
		done
	done
	if [ -n "${REPORT_PNG_DIR:-}" ]; then # the renders doc/ shows
		cp "$TMP/sweep-1280,900.png" "$REPORT_PNG_DIR/report-1280x900.png"
		cp "$TMP/sweep-390,844.png" "$REPORT_PNG_DIR/report-390x844.png"
	fi
	timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --user-data-dir="$TMP/chrome" \
		--print-to-pdf="$TMP/run.pdf" "file://$TMP/run.html" >/dev/null 2>&1
	check "the run's page prints to PDF" eval '[ "$(head -c 5 "$TMP/run.pdf")" = "%PDF-" ]'
fi

"$BIN" --headless -n 1 -D 0.5 "${SMALL[@]}" -o /dev/null --report "$TMP/no/such/dir/r.html" 2>"$TMP/bad.err"
ok $(($? == 2 ? 0 : 1)) "--report into a missing directory: exit 2"
check "  one line naming --report" eval '[ "$(wc -l <"$TMP/bad.err")" -eq 1 ] && grep -q -- "--report" "$TMP/bad.err"'
