#!/usr/bin/env python3
"""check_svg.py: checks the charts of --report pages (src/output/report_impl.h says what holds).

Usage: check_svg.py PAGE.html...

Each <svg> of a page is parsed with xml.etree. Its plot area is its one <rect class="frame">;
every shape in <g class="data"> (polyline points, circle centres, line ends, rectangles) lies
inside it; numeric ticks (text.yt, text.xt) are multiples of one nice step (1, 2, 2.5 or 5 x
10^k) and lie on the frame, the y ticks running from its bottom to its top; no text is turned
(a rotated axis label overlapped a tick); every key of <g class="legend"> has one swatch and
words; every series drawn (a class of a data shape) has a key whose swatch has that class, and
no key stands for a series not drawn. Prints one line per chart, "PAGE: LABEL: keys=a|b", and
each problem on stderr; exits 1 when any."""
import math
import re
import sys
import xml.etree.ElementTree as ET

TOL = 0.11  # coordinates are printed to 0.1 (or 0.01) of a unit
NICE = (1, 2, 2.5, 5)


def classes(e):
    return set((e.get("class") or "").split())


def points(e):
    """The (x, y) points a shape occupies: a rectangle by two corners."""
    tag = e.tag
    f = lambda k: float(e.get(k))
    if tag == "polyline":
        return [tuple(map(float, p.split(","))) for p in e.get("points").split()]
    if tag == "circle":
        return [(f("cx"), f("cy"))]
    if tag == "line":
        return [(f("x1"), f("y1")), (f("x2"), f("y2"))]
    if tag == "rect":
        return [(f("x"), f("y")), (f("x") + f("width"), f("y") + f("height"))]
    return []


def nice_ticks(values):
    """None when values are multiples of one nice step, else why not."""
    if len(values) < 2:
        return "fewer than 2 ticks: %s" % values
    step = values[1] - values[0]
    if step <= 0:
        return "ticks not increasing: %s" % values
    for a, b in zip(values, values[1:]):
        if abs((b - a) - step) > 1e-6 * step:
            return "ticks not evenly spaced: %s" % values
    mant = step / 10 ** math.floor(math.log10(step) + 1e-9)
    if not any(abs(mant - m) < 1e-6 for m in NICE):
        return "tick step %g is not 1, 2, 2.5 or 5 x 10^k: %s" % (step, values)
    for v in values:
        if abs(v / step - round(v / step)) > 1e-6:
            return "tick %g is not a multiple of the step %g" % (v, step)
    return None


def check_svg(svg, say):
    """Checks one chart; returns its label and its keys' names."""
    label = svg.get("aria-label", "?")
    frames = [e for e in svg.iter("rect") if "frame" in classes(e)]
    if len(frames) != 1:
        say(label, "%d frames, not 1" % len(frames))
        return label, []
    fr = frames[0]
    left, top = float(fr.get("x")), float(fr.get("y"))
    right, bottom = left + float(fr.get("width")), top + float(fr.get("height"))
    inside = lambda x, y: left - TOL <= x <= right + TOL and top - TOL <= y <= bottom + TOL
    for e in svg.iter():
        if e.get("transform"):
            say(label, "a turned element: <%s transform=%r>" % (e.tag, e.get("transform")))
    groups = [g for g in svg.iter("g") if "data" in classes(g)]
    if len(groups) != 1:
        say(label, "%d data groups, not 1" % len(groups))
        return label, []
    drawn, shapes = set(), 0
    for e in groups[0].iter():
        pts = points(e)
        if not pts:
            continue
        shapes += 1
        drawn |= classes(e) - {"point"}
        for x, y in pts:
            if not inside(x, y):
                say(label, "<%s class=%r> has (%.1f, %.1f) outside the axes (%.1f..%.1f, %.1f..%.1f)"
                    % (e.tag, e.get("class"), x, y, left, right, top, bottom))
    if not shapes:
        say(label, "nothing drawn")
    # Ticks: numbers, nice, on the frame's edges.
    for cls, axis in (("yt", "y"), ("xt", "x")):
        ticks = [t for t in svg.iter("text") if cls in classes(t)]
        if not ticks:
            continue
        try:
            values = [float(t.text) for t in ticks]
        except (TypeError, ValueError):
            say(label, "a %s tick that is not a number: %s" % (axis, [t.text for t in ticks]))
            continue
        why = nice_ticks(values)
        if why:
            say(label, "%s ticks: %s" % (axis, why))
        for t in ticks:
            pos = float(t.get(axis)) - (4 if axis == "y" else 0)  # a y label's baseline sits 4 below
            lo, hi = (top, bottom) if axis == "y" else (left, right)
            if not lo - TOL <= pos <= hi + TOL:
                say(label, "%s tick %s at %.1f, off the frame (%.1f..%.1f)" % (axis, t.text, pos, lo, hi))
        if axis == "y" and (abs(float(ticks[0].get("y")) - 4 - bottom) > TOL
                            or abs(float(ticks[-1].get("y")) - 4 - top) > TOL):
            say(label, "the y ticks do not run from the frame's bottom to its top")
    # The legend: a swatch and words per key; keys and series match.
    keys, covered = [], set()
    for g in svg.iter("g"):
        if "legend" not in classes(g):
            continue
        for key in g:
            sw = [e for e in key if e.tag in ("line", "rect") and "sw" in classes(e)]
            words = "".join(t.text or "" for t in key.iter("text")).strip()
            if len(sw) != 1 or not words:
                say(label, "a key without %s: %s" % ("words" if len(sw) == 1 else "one swatch",
                                                      ET.tostring(key, encoding="unicode")))
                continue
            series = classes(sw[0]) - {"sw"}
            keys.append(words)
            covered |= series
            if series - drawn:
                say(label, "key %r stands for %s, not drawn" % (words, sorted(series - drawn)))
    if drawn - covered:
        say(label, "drawn without a key: %s" % sorted(drawn - covered))
    return label, keys


def main(pages):
    bad = 0
    for page in pages:
        text = open(page, encoding="utf-8").read()
        svgs = re.findall(r"<svg\b.*?</svg>", text, re.S)
        if not svgs:
            print("%s: no chart" % page, file=sys.stderr)
            bad += 1
        for s in svgs:
            def say(label, what):
                nonlocal bad
                bad += 1
                print("%s: %s: %s" % (page, label, what), file=sys.stderr)
            try:
                svg = ET.fromstring(s)
            except ET.ParseError as e:
                say("?", "not well-formed XML: %s" % e)
                continue
            label, keys = check_svg(svg, say)
            print("%s: %s: keys=%s" % (page, label, "|".join(keys)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
