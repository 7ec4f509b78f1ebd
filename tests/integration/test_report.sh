#!/usr/bin/env bash
# test_report.sh: --report writes a self-contained HTML page at the end of a sweep and of a
# run: nothing fetched (no script, no link, no URL but its own data: links), well formed, one
# point per sweep step on the scaling curve, the prediction beside it, the breakdown and the
# timeline drawn, no driver's utilization (no vendor library answers on PoCL); headless
# Chromium renders it at 1280x800 and at a phone's width, and prints it to PDF, with no console
# message (a page that does log one shows the capture works).
# tier: device, about 20 s
. "$(dirname "$0")/lib.sh"
SMALL=(-s 20000 -l 2 -i 0.25)

"$BIN" --sweep 1,2 -D 1 "${SMALL[@]}" --calibrate --report "$TMP/sweep.html" >"$TMP/table" 2>"$TMP/err"
ok $? "a sweep with --report exits 0"
check "the page is written" test -s "$TMP/sweep.html"
# (until both workers have rates in 3 windows each, bounded; then SIGINT)
"$BIN" --headless -n 2 -D 300 "${SMALL[@]}" -o "$TMP/run.csv" --report "$TMP/run.html" 2>"$TMP/run.err" &
stop_when 120 $! measured 6 "$TMP/run.csv"
ok $RC "a headless run with --report exits 0"

python3 - "$TMP/sweep.html" "$TMP/run.html" "$TMP/table" <<'PY'
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

for path in sys.argv[1:3]:
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
        assert c.count.get(("circle", "point")) == 2, (path, "one point per step", c.count)
        assert c.count.get(("polyline", "predicted")) == 1 and c.count.get(("polyline", "ideal")) == 1, path
        assert ">1x1<" in text and ">2x1<" in text, path
    else:
        assert c.count.get(("polyline", "measured")) == 1, (path, "the rate over time")
    kernels = c.count.get(("rect", "kernel"), 0) + c.count.get(("rect", "kernel est"), 0)
    assert kernels > 0, (path, "the timeline's kernels")
PY
ok $? "both pages: self-contained, well formed, the diagnosis, a data link per chart, one point per step, the timeline, no driver line"

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
	for size in 1280,800 390,844; do
		msgs=$(render "$TMP/sweep.html" "$TMP/sweep-$size.png" $size)
		check "Chromium renders the sweep's page at $size, no console message" \
			eval '[ -z "$msgs" ] && [ "$(head -c 8 "$TMP/sweep-'$size'.png" | od -An -tx1 | tr -d " \n")" = 89504e470d0a1a0a ]'
	done
	timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --user-data-dir="$TMP/chrome" \
		--print-to-pdf="$TMP/run.pdf" "file://$TMP/run.html" >/dev/null 2>&1
	check "the run's page prints to PDF" eval '[ "$(head -c 5 "$TMP/run.pdf")" = "%PDF-" ]'
fi

"$BIN" --headless -n 1 -D 0.5 "${SMALL[@]}" -o /dev/null --report "$TMP/no/such/dir/r.html" 2>"$TMP/bad.err"
ok $(($? == 2 ? 0 : 1)) "--report into a missing directory: exit 2"
check "  one line naming --report" eval '[ "$(wc -l <"$TMP/bad.err")" -eq 1 ] && grep -q -- "--report" "$TMP/bad.err"'
