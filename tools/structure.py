#!/usr/bin/env python3
"""structure.py: the tree's structure rules, checked from the sources alone (python3, no
compiler). Run from anywhere; `make lint` runs it through tools/lint.sh. Prints one line per
finding, "path:line: [check] message", and exits 1 when there is any.

Folders. A file's folder is its directory under src/ (src/ring/reader.c: ring); the files at
src/'s root other than main.c, and every header in include/gputop/, are the base tier ("base");
main.c is a folder of its own ("main"). tests/, fuzz/ and bench/ are not checked and do not
count as users of anything.

Includes. Only quoted includes are read (<...> are system headers). "gputop/x.h" is
include/gputop/x.h (base), "folder/x.h" is src/folder/x.h, and "x.h" is the including file's
own folder. A quoted include that resolves to none of these is a finding.

Checks:
  layer     an include runs back up LAYERS below (a folder may include its own headers, base,
            and folders of a lower rank; a folder of the same rank is a peer, not below it, and
            is refused unless ALLOW_PEERS); also an include not spelt as above ("../x.h", or a
            folder's own header spelt "folder/x.h").
  contract  a header in include/gputop/ that is not in CONTRACTS, that includes a header outside
            include/gputop/, or that files of fewer than two folders use (a folder uses a
            contract when one of its files includes it, directly or through other contracts).
  size      a file under src/ over MAX_FILE_LINES lines.
  function  a function over MAX_FUNC_LINES lines, counted from the line of its opening brace to
            the line of its closing brace, both included. A function that is one table or one
            switch and reads best whole is exempt when the comment block right above its first
            line (the line with its return type) holds a line with MARKER, e.g.
                /* lint: one switch: every key of the dashboard, in the order of the help */
                static void on_key(struct ui *u, int ch)
  placement a header under src/folder/ that files of one other folder use and its own folder
            does not: it belongs next to its user.
"""
import os
import re
import sys

# The layers, lowest first: a folder may include only from its own folder, base, and folders
# of a lower rank. Folders on one line are peers of the same rank.
LAYERS = [
    ["base"],
    ["ring", "vendor"],
    ["measure"],
    ["worker", "observe"],
    ["session"],
    ["output"],
    ["dashboard", "headless"],
    ["opts"],
    ["main"],
]
ALLOW_PEERS = False

# The headers include/gputop/ may hold: the contracts that cross folders.
CONTRACTS = {
    "common.h", "wire.h", "spec.h", "frame.h", "session.h", "outputs.h", "opts.h", "device.h",
    "kargs.h", "proc.h", "rng.h", "sig.h", "observe_env.h", "settings.h", "near.h",
}

MAX_FILE_LINES = 600
MAX_FUNC_LINES = 80
MARKER_RE = re.compile(r"lint:\s*one\s+(table|switch)\b")

RANK = {f: i for i, row in enumerate(LAYERS) for f in row}
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')

root = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
findings = []


def report(path, line, check, msg):
    findings.append((path, line, check, msg))


def folder_of(rel):
    """The folder of a file given relative to the root: base, main or a src/ folder."""
    parts = rel.split("/")
    if parts[0] == "include":
        return "base"
    if parts[0] == "src":
        if len(parts) == 2:
            return "main" if parts[1] == "main.c" else "base"
        return parts[1]
    return None


def read(rel):
    with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
        return f.read()


def sources():
    out = []
    for top in ("src", "include/gputop"):
        for d, _, names in os.walk(os.path.join(root, top)):
            for n in names:
                if n.endswith((".c", ".h")):
                    out.append(os.path.relpath(os.path.join(d, n), root))
    return sorted(out)


def resolve(rel, name):
    """The root-relative path an include names, with whether its spelling is the house one."""
    here = os.path.dirname(rel)
    if "/" not in name and os.path.isfile(os.path.join(root, here, name)):
        return os.path.join(here, name), True
    if name.startswith("gputop/") and os.path.isfile(os.path.join(root, "include", name)):
        return os.path.join("include", name), True
    if os.path.isfile(os.path.join(root, "src", name)):
        target = os.path.normpath(os.path.join("src", name))
        # a folder's own header is spelt "x.h", not "folder/x.h"
        return target, os.path.dirname(target) != here
    cand = os.path.normpath(os.path.join(here, name))
    if os.path.isfile(os.path.join(root, cand)):
        return cand, False
    return None, False


def check_includes(files, texts):
    """Layer check; returns includes: file -> [(line, target)]."""
    includes = {}
    for rel in files:
        lst = includes.setdefault(rel, [])
        src_folder = folder_of(rel)
        for no, line in enumerate(texts[rel].splitlines(), 1):
            m = INCLUDE_RE.match(line)
            if not m:
                continue
            name = m.group(1)
            target, canonical = resolve(rel, name)
            if target is None:
                report(rel, no, "layer", f'"{name}" names no header of include/gputop/ or src/')
                continue
            lst.append((no, target))
            if not canonical:
                report(rel, no, "layer", f'"{name}" is spelt wrong: "gputop/x.h", "folder/x.h", '
                       'or "x.h" for the own folder')
            dst_folder = folder_of(target)
            if dst_folder == src_folder or dst_folder == "base":
                continue
            if src_folder not in RANK or dst_folder not in RANK:
                unknown = src_folder if src_folder not in RANK else dst_folder
                report(rel, no, "layer", f"folder {unknown} is not in the layer table")
                continue
            rs, rd = RANK[src_folder], RANK[dst_folder]
            if rd > rs or (rd == rs and not ALLOW_PEERS):
                how = "a peer" if rd == rs else "a higher layer"
                report(rel, no, "layer", f'{src_folder} includes "{name}" of {dst_folder}, {how}')
    return includes


def users(includes):
    """target header -> set of folders that include it (contracts through other contracts)."""
    direct = {}
    for rel, lst in includes.items():
        if rel.startswith("include/"):
            continue
        for _, t in lst:
            direct.setdefault(t, set()).add(folder_of(rel))
    # a contract's users also use every contract it includes, transitively
    changed = True
    while changed:
        changed = False
        for rel, lst in includes.items():
            if not rel.startswith("include/"):
                continue
            for _, t in lst:
                if not t.startswith("include/"):
                    continue
                before = len(direct.setdefault(t, set()))
                direct[t] |= direct.get(rel, set())
                changed |= len(direct[t]) != before
    return direct


def check_contracts(files, includes, used):
    for rel in files:
        if not rel.startswith("include/"):
            continue
        base = os.path.basename(rel)
        if base not in CONTRACTS:
            report(rel, 1, "contract", f"{base} is not in the contract list (tools/structure.py)")
        for no, t in includes[rel]:
            if not t.startswith("include/"):
                report(rel, no, "contract", f"includes {t}, which is not a contract of include/gputop/")
        folders = used.get(rel, set())
        if not folders:
            report(rel, 1, "contract", "used by no folder of src/")
        elif len(folders) == 1:
            (who,) = folders
            report(rel, 1, "contract", f"used by {who} alone: it belongs in src/{who}/, not in include/")


def check_placement(files, used):
    for rel in files:
        if not rel.startswith("src/") or not rel.endswith(".h"):
            continue
        own = folder_of(rel)
        folders = used.get(rel, set())
        if len(folders) == 1 and own not in folders:
            (other,) = folders
            report(rel, 1, "placement", f"used by {other} alone: it belongs in src/{other}/")


def strip_c(text):
    """Comments, strings, characters and preprocessor lines blanked, newlines kept."""
    out = []
    i, n = 0, len(text)
    at_line_start = True
    while i < n:
        c = text[i]
        if at_line_start and c in " \t":
            out.append(c)
            i += 1
            continue
        if at_line_start and c == "#":
            # a directive, with its continuations
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    out.append("\n")
                    i += 2
                    continue
                i += 1
            continue
        at_line_start = False
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
            continue
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
            continue
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + re.sub(r"[^\n]", " ", text[i + 1:j - 1]) + c)
            i = j
            continue
        if c == "\n":
            at_line_start = True
        out.append(c)
        i += 1
    return "".join(out)


def check_functions(rel, text):
    code = strip_c(text)
    lines = text.splitlines()
    depth = 0
    stmt_start = 0  # offset where the current top-level declaration begins
    open_at = None
    head = ""
    for i, c in enumerate(code):
        if c == "{":
            if depth == 0:
                head = code[stmt_start:i]
                open_at = i
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0 and open_at is not None:
                check_function(rel, code, lines, head, stmt_start, open_at, i)
                open_at = None
                stmt_start = i + 1
            depth = max(depth, 0)
        elif c == ";" and depth == 0:
            stmt_start = i + 1


def check_function(rel, code, lines, head, stmt_start, open_at, close_at):
    h = head.strip()
    # a function definition: a declarator with parentheses, no initializer, not a type body
    if not h.endswith(")") or "=" in h or h.startswith("typedef"):
        return
    first = code.count("\n", 0, stmt_start + (len(head) - len(head.lstrip()))) + 1
    start = code.count("\n", 0, open_at) + 1
    end = code.count("\n", 0, close_at) + 1
    n = end - start + 1
    if n <= MAX_FUNC_LINES:
        return
    # the comment block right above the first line
    k = first - 2
    while k >= 0 and re.match(r"\s*(/\*|\*|//)", lines[k]):
        if MARKER_RE.search(lines[k]):
            return
        k -= 1
    name = re.findall(r"(\w+)\s*\(", h)
    name = name[0] if name else "?"
    report(rel, first, "function", f"{name}() is {n} lines (over {MAX_FUNC_LINES}): split it, or "
           "mark one table or one switch with /* lint: one table */ or /* lint: one switch */")


def main():
    files = sources()
    texts = {rel: read(rel) for rel in files}
    includes = check_includes(files, texts)
    used = users(includes)
    check_contracts(files, includes, used)
    check_placement(files, used)
    for rel in files:
        if not rel.startswith("src/"):
            continue
        n = texts[rel].count("\n") + (0 if texts[rel].endswith("\n") or not texts[rel] else 1)
        if n > MAX_FILE_LINES:
            report(rel, n, "size", f"{n} lines (over {MAX_FILE_LINES}): split it")
        if rel.endswith(".c") or rel.endswith(".h"):
            check_functions(rel, texts[rel])
    for path, line, check, msg in sorted(findings):
        print(f"{path}:{line}: [{check}] {msg}")
    print(f"structure: {len(files)} files, {len(findings)} findings")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
