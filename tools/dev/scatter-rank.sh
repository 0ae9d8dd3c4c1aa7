#!/bin/sh
# scatter-rank.sh - the windowed scatter's strategies measured over
# repeated jobs on emulated hosts beside the calibrated model's
# prediction of each, and the two rankings: does the model order the
# strategies as they measure, job after job?
#
#   tools/dev/scatter-rank.sh [BUILDDIR]
#
# Environment: HOSTS (emulated hosts, default 3: 9 ranks in blocks of 3,
# the host rank 8 on the last with nodes 6 and 7), SIZES (window sizes M
# in elements of 8 bytes, default "1,1024"), REPS (jobs per overlap,
# default 3), ITERS (default 25), MODEL (RTOPO_MODEL of the jobs, default
# auto; auto,tt=0 prices the receivers' turn as tq, held by every
# sender, as the calibration did before tt), OUT (the jobs' outputs,
# default a temporary directory, removed), TOL (default 0.03: model times
# closer than this are a tie).
#
# Each job, under the emulated-host tests' lock:
#   RTOPO_MODEL=$MODEL RTOPO_LOG_LEVEL=debug rtopo-run -n 9 --hosts $HOSTS \
#     rtopo-bench scatter --d 3 --host 8 --sizes $SIZES --overlap 0|half|max \
#       --x all --iters $ITERS --no-baseline
# (the model column is the job's own calibrated model, the one its auto
# choice uses, with the schedules simulated event by event).  Per window
# size and overlap, over the jobs: every strategy's median of the jobs'
# medians and median model time, the rank by each, auto's choices, the
# pairs the two rankings order alike (among those whose model times
# differ by more than TOL), and the calibrated figures of each job (the
# pairs' ts and tt, the burst's tq and tt).  Only the ranks mean anything
# on a shared machine: the model was calibrated at the job's start, the
# times are of the machine as it was during the job.
# Needs root (namespaces); not part of make check.
set -eu
B=${1:-build}
HOSTS=${HOSTS:-3}
SIZES=${SIZES:-1,1024}
REPS=${REPS:-3}
ITERS=${ITERS:-25}
MODEL=${MODEL:-auto}
TOL=${TOL:-0.03}
LOCK=/tmp/rtopo-hosts-tests.lock
RUN=$B/tools/rtopo-run
BENCH=$B/tools/rtopo-bench
[ -x "$RUN" ] && [ -x "$BENCH" ] || { echo "build $B first (rtopo-run, rtopo-bench)" >&2; exit 2; }
if [ -n "${OUT:-}" ]; then
    mkdir -p "$OUT"
else
    OUT=$(mktemp -d)
    trap 'rm -rf "$OUT"' EXIT
fi

echo "# scatter, host rank 8 + 3-cube, 9 ranks on $HOSTS emulated hosts, RTOPO_MODEL=$MODEL, $REPS jobs per overlap"
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for rep in $(seq 1 "$REPS"); do
    for ov in 0 half max; do
        f=$OUT/job-$ov-$rep.txt
        RTOPO_MODEL=$MODEL RTOPO_LOG_LEVEL=debug flock -w 900 "$LOCK" timeout 600 "$RUN" -n 9 \
            --hosts "$HOSTS" --timeout 580 "$BENCH" scatter --d 3 --host 8 --sizes "$SIZES" \
            --overlap "$ov" --x all --iters "$ITERS" --no-baseline > "$f" 2>&1 ||
            { echo "job failed (overlap $ov), see $f"; tail -5 "$f"; exit 1; }
    done
done

python3 - "$OUT" "$TOL" <<'EOF'
import glob, re, statistics as st, sys
out, tol = sys.argv[1], float(sys.argv[2])
rows, figs = {}, []
for f in sorted(glob.glob(f"{out}/job-*.txt")):
    M = ov = None
    turn, burst = [], ""
    for line in open(f):
        m = re.match(r"^\[0\] # M (\d+) elements.*overlap (\d+)", line)
        if m:
            M, ov = int(m.group(1)), int(m.group(2))
            continue
        m = re.match(r"^\[0\] ([a-z]+(?::\d)?|auto->\S+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)", line)
        if m and M is not None:
            name = "auto" if m.group(1).startswith("auto") else m.group(1)
            rows.setdefault((M, ov, name), []).append(
                (float(m.group(2)), float(m.group(4)), m.group(1)))
        m = re.search(r"^\[0\] .*pair (\d+<->\d+): more ranks than processors.*: ts ([\d.e+-]+) us"
                      r".*tt ([\d.e+-]+) us", line)
        if m:
            turn.append(f"{m.group(1)} ts {m.group(2)} tt {m.group(3)}")
        m = re.search(r"^\[0\] .*measured burst.*: (tq .*)$", line)
        if m:
            burst = m.group(1)
    figs.append((f.split("/")[-1], "; ".join(turn), burst))
for M, ov in sorted(set((k[0], k[1]) for k in rows)):
    names = [k[2] for k in rows if k[:2] == (M, ov) and k[2] != "auto"]
    meas = {n: st.median(x[0] for x in rows[(M, ov, n)]) for n in names}
    mod = {n: st.median(x[1] for x in rows[(M, ov, n)]) for n in names}
    rm = {n: 1 + sum(meas[o] < meas[n] for o in names) for n in names}
    rp = {n: 1 + sum(mod[o] < mod[n] for o in names) for n in names}
    print(f"\n### M {M} ({M * 8} B per window), overlap {ov}, {len(rows[(M, ov, names[0])])} jobs")
    print("| strategy | measured median (us) | model (us) | measured rank | model rank |")
    print("|---|---:|---:|---:|---:|")
    for n in sorted(names, key=lambda n: meas[n]):
        print(f"| {n} | {meas[n]:.1f} | {mod[n]:.1f} | {rm[n]} | {rp[n]} |")
    agree = pairs = 0
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            lo, hi = sorted((mod[a], mod[b]))
            if hi - lo <= tol * lo:
                continue
            pairs += 1
            agree += (mod[a] < mod[b]) == (meas[a] < meas[b])
    best = min(names, key=lambda n: meas[n])
    auto = rows.get((M, ov, "auto"), [])
    chose = sorted(set(x[2] for x in auto))
    print(f"fastest measured: {best}; model's first: {min(names, key=lambda n: mod[n])}; "
          f"auto chose {', '.join(chose)} (median {st.median(x[0] for x in auto):.1f} us); "
          f"{agree} of {pairs} pairs ordered alike (model gap > {100 * tol:g}%)")
print("\n# calibrated per job (rank 0's log)")
for f, t, b in figs:
    print(f"# {f}: {t}; burst {b}")
EOF
