#!/bin/sh
# layer-graph.sh - the file-level include and call graph of rtopo's sources,
# by layer: lines per folder, edges between layers (those a layer may not
# take are listed file by file), and the circles (files that reach each
# other through calls and includes).
#
#   tools/dev/layer-graph.sh [--dot] [SRCDIR]
#
# SRCDIR is the top of a source tree (default: the one this script is in).
# --dot prints the file graph for Graphviz instead (one cluster per layer,
# edges a layer may not take in red):  ... --dot | dot -Tsvg > graph.svg
#
# The layers and what each may use are those of Makefile.am (the include
# paths of each convenience library).  A file is placed by its folder; in
# an older tree that kept the bootstrap in runtime/boot*.c, those files
# count as the bootstrap layer and runtime/params.* as the engine's.
#
# Calls are found by name: a file calls another when it names a function
# (or variable) that the other defines without `static`.  Comments and
# strings are ignored; macros are not expanded.  Only python3 is needed.
set -eu
dot=0
if [ "${1:-}" = --dot ]; then
    dot=1
    shift
fi
top=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$top"
exec python3 - "$dot" <<'EOF'
import os, re, sys

DOT = sys.argv[1] == "1"

# layer name, rank (bottom up), the layers it may use (besides itself)
LAYERS = [
    ("include", 0, set()),
    ("base", 1, {"include"}),
    ("topo", 2, {"include", "base"}),
    ("transports", 2, {"include", "base"}),
    ("boot", 2, {"include", "base"}),
    ("engine", 3, {"include", "base", "topo", "transports", "boot", "tool"}),
    ("tool", 3, {"include", "base", "topo", "transports", "boot", "engine"}),
    ("tools", 4, {"include", "base", "topo", "transports", "boot", "tool"}),
]
RANK = {n: r for n, r, _ in LAYERS}
MAY = {n: m for n, _, m in LAYERS}
FOLDER = {"include": "include/", "base": "base/", "topo": "topo/",
          "transports": "transports/", "boot": "runtime/boot/",
          "engine": "runtime/", "tool": "runtime/tool/", "tools": "tools/"}


def layer_of(path):
    if path.startswith("include/"):
        return "include"
    if path.startswith("base/"):
        return "base"
    if path.startswith("topo/"):
        return "topo"
    if path.startswith("transports/"):
        return "transports"
    if path.startswith("runtime/boot/") or re.match(r"runtime/boot[^/]*\.[ch]$", path):
        return "boot"
    if path.startswith("runtime/tool/"):
        return "tool"
    if path.startswith("runtime/"):
        return "engine"
    if path.startswith("tools/") and not path.startswith("tools/dev/"):
        return "tools"
    return None


files = []
for d in ("include", "base", "topo", "transports", "runtime", "tools"):
    for root, _, names in os.walk(d):
        for n in sorted(names):
            p = os.path.join(root, n)
            if n.endswith((".c", ".h")) and layer_of(p):
                files.append(p)
files.sort()
by_base = {}
for f in files:
    by_base.setdefault(os.path.basename(f), []).append(f)

text, lines = {}, {}
for f in files:
    with open(f, encoding="utf-8", errors="replace") as fh:
        t = fh.read()
    lines[f] = t.count("\n")
    text[f] = t


def strip(t):
    """comments and string/char literals out, newlines kept"""
    out, i, n = [], 0, len(t)
    while i < n:
        c = t[i]
        if t.startswith("/*", i):
            j = t.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * t.count("\n", i, j))
            i = j
        elif t.startswith("//", i):
            j = t.find("\n", i)
            i = n if j < 0 else j
        elif c in "\"'":
            j = i + 1
            while j < n and t[j] != c:
                j += 2 if t[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


# includes: "name" resolved the way the build does: the including file's
# folder first, then any folder of the tree
inc = {f: set() for f in files}
for f in files:
    for m in re.finditer(r'^\s*#\s*include\s+"([^"]+)"', text[f], re.M):
        name = m.group(1)
        same = os.path.join(os.path.dirname(f), name)
        if same in text:
            inc[f].add(same)
        elif name in text:
            inc[f].add(name)
        elif os.path.basename(name) in by_base:
            inc[f].add(by_base[os.path.basename(name)][0])

# definitions at file scope (not static) and the names each file uses
ident = re.compile(r"[A-Za-z_]\w*")
defs, uses = {}, {}
for f in files:
    if not f.endswith(".c"):
        continue
    s = re.sub(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", "", strip(text[f]), flags=re.M)
    depth, start, names = 0, 0, set()
    for i, c in enumerate(s):
        if c == "{":
            if depth == 0:
                head = s[start:i]
                m = re.search(r"(\w+)\s*\([^;{}]*\)\s*$", head, re.S)
                if m and not re.search(r"\bstatic\b", head) and "=" not in head:
                    defs.setdefault(m.group(1), f)
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                start = i + 1
        elif c == ";" and depth == 0:
            head = s[start:i]
            if (not re.search(r"\b(static|extern|typedef)\b", head) and "(" not in head
                    and re.search(r"\w", head)):
                m = re.search(r"(\w+)\s*(\[[^]]*\])?\s*(=.*)?$", head, re.S)
                if m:
                    defs.setdefault(m.group(1), f)
            start = i + 1
    uses[f] = set(ident.findall(s))

# the public API (include/rtopo.h): the tools may call it wherever it is
# defined
public = set(re.findall(r"\b(rtopo_[a-z0-9]\w*)\s*\(", strip(text.get("include/rtopo.h", ""))))
call, callnames = {f: set() for f in files}, {}
for f, names in uses.items():
    for n in names:
        g = defs.get(n)
        if g and g != f:
            call[f].add(g)
            callnames.setdefault((f, g), set()).add(n)

edges = {}
for f in files:
    for g in inc[f]:
        edges.setdefault((f, g), set()).add("include")
    for g in call[f]:
        edges.setdefault((f, g), set()).add("call")


def allowed(a, b):
    la, lb = layer_of(a), layer_of(b)
    if la == lb or lb in MAY[la]:
        return True
    # a tool calling only the public API, no internal header
    return (la == "tools" and b.endswith(".c") and
            callnames.get((a, b), {""}) <= public)


# circles: strongly connected components (Tarjan, iterative)
adj = {f: sorted({g for (a, g) in edges if a == f}) for f in files}
index, low, onstack, stack, sccs, counter = {}, {}, set(), [], [], [0]
for root in files:
    if root in index:
        continue
    work = [(root, 0)]
    while work:
        v, i = work.pop()
        if i == 0:
            index[v] = low[v] = counter[0]
            counter[0] += 1
            stack.append(v)
            onstack.add(v)
        recurse = False
        for j in range(i, len(adj[v])):
            w = adj[v][j]
            if w not in index:
                work.append((v, j + 1))
                work.append((w, 0))
                recurse = True
                break
            if w in onstack:
                low[v] = min(low[v], index[w])
        if recurse:
            continue
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                onstack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                sccs.append(sorted(comp))
        if work:
            u = work[-1][0]
            low[u] = min(low[u], low[v])

order = [n for n, _, _ in LAYERS]
if DOT:
    print("digraph rtopo {\n  rankdir=BT; node [shape=box, fontsize=10];")
    for n in order:
        fs = [f for f in files if layer_of(f) == n]
        if not fs:
            continue
        print('  subgraph "cluster_%s" { label="%s (%s)";' % (n, n, FOLDER[n]))
        for f in fs:
            print('    "%s";' % f)
        print("  }")
    for (a, b), kinds in sorted(edges.items()):
        attrs = []
        if "include" not in kinds:
            attrs.append("style=dashed")
        if not allowed(a, b):
            attrs.append("color=red")
        print('  "%s" -> "%s"%s;' % (a, b, " [%s]" % ", ".join(attrs) if attrs else ""))
    print("}")
    sys.exit(0)

print("== lines per layer (folder: files, lines of .c and .h)")
for n in order:
    fs = [f for f in files if layer_of(f) == n]
    if fs:
        print("  %-10s %-15s %3d files %6d lines" % (n, FOLDER[n], len(fs),
                                                     sum(lines[f] for f in fs)))
print("  %-10s %-15s %3d files %6d lines" % ("total", "", len(files),
                                             sum(lines.values())))

print("== edges between layers (file pairs: includes / calls)")
pairs = {}
for (a, b), kinds in edges.items():
    la, lb = layer_of(a), layer_of(b)
    if la == lb:
        continue
    p = pairs.setdefault((la, lb), [0, 0])
    if "include" in kinds:
        p[0] += 1
    if "call" in kinds:
        p[1] += 1
for (la, lb) in sorted(pairs, key=lambda k: (order.index(k[0]), order.index(k[1]))):
    i, c = pairs[(la, lb)]
    nb = sum(1 for (a, b) in edges if layer_of(a) == la and layer_of(b) == lb
             and not allowed(a, b))
    bad = "" if not nb else "   <-- %d not allowed (%s)" % (nb,
        "upward" if RANK[lb] > RANK[la] else "sideways" if RANK[lb] == RANK[la] else "not in its list")
    print("  %-10s -> %-10s %3d / %3d%s" % (la, lb, i, c, bad))

print("== edges a layer may not take (upward or sideways)")
nbad = 0
for (a, b), kinds in sorted(edges.items()):
    if not allowed(a, b):
        nbad += 1
        print("  %s -> %s (%s)" % (a, b, ", ".join(sorted(kinds))))
if not nbad:
    print("  none")

print("== circles (files that reach each other by includes and calls)")
for comp in sorted(sccs, key=lambda c: (-len(c), c)):
    print("  %d files: %s" % (len(comp), " ".join(comp)))
if not sccs:
    print("  none")
print("== summary: %d files, %d edges (%d include, %d call), %d not allowed, "
      "%d circles, largest %d files" % (
          len(files), len(edges),
          sum(1 for k in edges.values() if "include" in k),
          sum(1 for k in edges.values() if "call" in k), nbad, len(sccs),
          max([len(c) for c in sccs] or [0])))
EOF
