#!/bin/sh
# copy-choice.sh - which auto choices change when the copy inside a rank
# (the local class) costs its measured figures instead of the built-in
# nothing?  Takes a model as a job logs it (RTOPO_LOG_LEVEL=debug, the
# "model ..." line of calib.c: local.ts and local.tw measured), and runs
# rtopo-sim over the collectives whose candidates copy inside a rank, once
# under that model without its local. items (before: the built-in copy
# figures, 0) and once under it whole (after):
#   scatter    every strategy and x; host outside the cube and on node 0
#              (its own window a copy), d 3..6, windows M of 64..1M
#              elements of 8 bytes at overlap 0, M/2, M - 1
#   allreduce  (otis data_sum) and scan (otis prefix_sum): the topology's
#              own and the generic candidates (a local copy Y), whole
#              registers or the model's pieces
#   broadcast  (otis broadcast), the same
#   shift      ring and mesh shifts by q (q mod p = 0: local copies), and
#              the OTIS shift kinds (a line's displacement 0: a copy)
# and prints one line per case whose choice differs (the candidate's
# name, and its steps, transfers and kernels where the name does not tell
# them apart; under the after model, the time of the before choice and of
# the after one, where rtopo-sim lists the candidates), then how many
# cases ran and differ per collective.
#
#   tools/dev/copy-choice.sh BUILDDIR MODEL [HOSTS]
#
# MODEL: the logged list (or @FILE holding it); HOSTS: rtopo-sim's host
# options for a model measured on several hosts (e.g. "--hosts 2": the
# job's intra. and inter. figures then cost hops by reach; scatter takes
# none).  Processor-independent: model times only, nothing is timed.
set -eu
B=$1
M=$2
HOSTS=${3:-}
case $M in @*) M=$(cat "${M#@}") ;; esac
SIM=$B/tools/rtopo-sim
[ -x "$SIM" ] || { echo "no $SIM" >&2; exit 2; }
before=$(printf '%s\n' "$M" | tr , '\n' | grep -v '^local\.' | paste -sd, -)
exec python3 - "$SIM" "$before" "$M" "$HOSTS" <<'EOF'
import json, subprocess, sys
sim, before, after, hosts = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split()

def run(args, model, key, use_hosts):
    cmd = [sim] + args + [key, model, "--json"] + (hosts if use_hosts else [])
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if out.returncode:
        return None
    return json.loads(out.stdout)

def sig_scatter(j):
    return "%s x %s" % (j["strategy"], "-" if j["x"] is None else j["x"])

def sig_otis(j):
    return "%s (%d steps, %d transfers, %d kernels, local %d)" % (
        j["algo"], j["steps"], j["transfers"], j["kernels"], j["hops"]["local"])

def sig_shift(j):
    return j["algo"]

def gap(name, a, b):
    # under the after model: the before choice's time and the after one's
    if name == "scatter":
        t = [c["model_time"] for c in b["candidates"]
             if c["strategy"] == a["strategy"] and c["x"] == a["x"]]
        if t:
            return "%.3f / %.3f" % (t[0] * 1e6, b["model_time"] * 1e6)
    if name == "shift" and a["algo"] in b.get("candidates", {}):
        return "%.3f / %.3f" % (b["candidates"][a["algo"]]["model_time"] * 1e6,
                                b["model_time"] * 1e6)
    return "- / %.3f" % (b["model_time"] * 1e6)

cases = []
for d in (3, 4, 5, 6):
    for M in (64, 1024, 16384, 131072, 1048576):
        for ov in (0, M // 2, M - 1):
            for hn in ([], ["--host-node", "0"]):
                cases.append(("scatter", ["scatter", "--d", str(d), "--M", str(M),
                              "--overlap", str(ov), "--esize", "8"] + hn,
                              "--model", sig_scatter, False))
topos = ("ring:8", "hypercube:3", "hypercube:4", "mesh:4x4", "otis-mesh:4",
         "otis-hypercube:4")
for op in ("data_sum", "prefix_sum", "broadcast"):
    for t in topos:
        for cnt in (1, 128, 8192, 131072):
            for ch in ("1", "0"):
                cases.append((op, ["otis", op, "--topo", t, "--count", str(cnt), "--dtype",
                              "int64", "--chunks", ch], "--cost", sig_otis, True))
for t in ("ring:8", "mesh:4x4", "hypercube:4"):
    p = 8 if t == "ring:8" else 16
    for q in (1, 3, p // 2, p, 2 * p):
        for m in ("8", "64K", "1M"):
            cases.append(("shift", ["shift", "--topo", t, "--q", str(q), "--bytes", m],
                          "--model", sig_shift, True))
for t in ("otis-mesh:4", "otis-hypercube:4"):
    for k in "abcdefgh":
        for s in (0, 1, 2, 4):
            for cnt in (1, 8192, 131072):
                cases.append(("otis shift", ["otis", "shift", "--topo", t, "--kind", k,
                              "--s", str(s), "--count", str(cnt), "--dtype", "int64"],
                              "--cost", sig_otis, True))
ran, diff, bad = {}, {}, 0
print("| collective | case | before (local free) | after (measured copy) | after model: before's / after's us |")
print("|---|---|---|---|---|")
for name, args, key, sig, uh in cases:
    a, b = run(args, before, key, uh), run(args, after, key, uh)
    if a is None or b is None:
        bad += 1
        continue
    ran[name] = ran.get(name, 0) + 1
    sa, sb = sig(a), sig(b)
    if sa != sb:
        diff[name] = diff.get(name, 0) + 1
        print("| %s | %s | %s | %s | %s |" % (name, " ".join(args[1:] if args[0] == "otis"
                                                          else args), sa, sb, gap(name, a, b)))
print()
for name in ran:
    print("%-12s %4d cases, %3d differ" % (name, ran[name], diff.get(name, 0)))
if bad:
    print("%d cases rtopo-sim refused (arguments the topology does not take)" % bad)
EOF
